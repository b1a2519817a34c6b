// Tenant isolation for orders, customers and shipments: another tenant's resources are 404s,
// never listed, and never referenced.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Order, Problem, Shipment } from "@waybill/sdk";
import { client, createCustomer, createOrder, createStockedProduct, otherTenant, setOrderStatus, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let mine: Call;
let theirs: Call;
let customerId: string;
let order: Order;
let shipment: Shipment;
beforeAll(async () => {
  stack = await startStack();
  mine = client(stack);
  theirs = client(stack, (await otherTenant(stack)).token);
  customerId = await createCustomer(mine);
  const productId = await createStockedProduct(mine, 5);
  order = await createOrder(mine, customerId, [{ productId, quantity: 1 }]);
  expect((await setOrderStatus(mine, order.id, "ready")).status).toBe(200);
  shipment = (await mine(`/orders/${order.id}/shipments`, { json: { carrier: "DHL", trackingNumber: "SHARED-1" } })).body;
});
afterAll(async () => {
  await stack?.stop();
});

function expectNotFound(answer: { status: number; body: Problem }, code: string) {
  expect(answer.status).toBe(404);
  expect(answer.body.code).toBe(code);
}

describe("another tenant", () => {
  it("cannot read or change this tenant's orders", async () => {
    expectNotFound(await theirs(`/orders/${order.id}`), "order_not_found");
    expectNotFound(await theirs(`/orders/${order.id}`, { method: "PUT", json: { dueDate: null } }), "order_not_found");
    expectNotFound(await setOrderStatus(theirs, order.id, "cancelled"), "order_not_found");
    expect((await theirs("/orders")).body.data).toEqual([]);
    expect((await theirs(`/orders?customerId=${customerId}`)).body.data).toEqual([]);
    expect((await mine(`/orders/${order.id}`)).body.status).toBe("inProgress");
  });

  it("cannot read or change this tenant's customers, nor order for them", async () => {
    expectNotFound(await theirs(`/customers/${customerId}`), "customer_not_found");
    expectNotFound(await theirs(`/customers/${customerId}`, { method: "PUT", json: { name: "Mallory" } }), "customer_not_found");
    expect((await theirs("/customers")).body.data).toEqual([]);
    const ownProduct = await createStockedProduct(theirs, 0);
    const borrowed = await theirs("/orders", {
      json: { shortId: "X-1", customerId, currency: "EUR", orderItems: [{ productId: ownProduct, quantity: 1, price: "1" }] },
    });
    expect(borrowed.status).toBe(422);
    expect(borrowed.body.errors[0].path).toBe("customerId");
    expect((await mine(`/customers/${customerId}`)).body.name).not.toBe("Mallory");
  });

  it("cannot order this tenant's products: 422 unknown_product on that line", async () => {
    const theirCustomer = await createCustomer(theirs);
    const ownProduct = await createStockedProduct(theirs, 0);
    const borrowed = await theirs("/orders", {
      json: {
        shortId: "X-2",
        customerId: theirCustomer,
        currency: "EUR",
        orderItems: [
          { productId: ownProduct, quantity: 1, price: "1" },
          { productId: order.orderItems[0].productId, quantity: 1, price: "1" },
        ],
      },
    });
    expect(borrowed.status).toBe(422);
    expect(borrowed.body.code).toBe("unknown_product");
    expect(borrowed.body.errors).toEqual([{ path: "orderItems.1.productId", message: expect.stringContaining(order.orderItems[0].productId) }]);
  });

  it("cannot read, ship against or move this tenant's shipments", async () => {
    expectNotFound(await theirs(`/shipments/${shipment.id}`), "shipment_not_found");
    expectNotFound(await theirs(`/shipments/${shipment.id}/status`, { json: { status: "inTransit" } }), "shipment_not_found");
    expectNotFound(await theirs(`/shipments/${shipment.id}/delivery`, { json: {} }), "shipment_not_found");
    expectNotFound(await theirs(`/orders/${order.id}/shipments`, { json: { carrier: "DHL", trackingNumber: "THEIRS-1" } }), "order_not_found");
    expect((await theirs("/shipments")).body.data).toEqual([]);
    expect((await theirs(`/shipments?orderId=${order.id}`)).body.data).toEqual([]);
    expect((await mine(`/shipments/${shipment.id}`)).body.status).toBe("pending");
  });

  it("may use the same shortId and tracking number as this tenant", async () => {
    const theirCustomer = await createCustomer(theirs);
    const theirProduct = await createStockedProduct(theirs, 1);
    const theirOrder = await theirs("/orders", {
      json: { shortId: order.shortId, customerId: theirCustomer, currency: "EUR", orderItems: [{ productId: theirProduct, quantity: 1, price: "1" }] },
    });
    expect(theirOrder.status).toBe(201);
    expect((await setOrderStatus(theirs, theirOrder.body.id, "ready")).status).toBe(200);
    expect((await theirs(`/orders/${theirOrder.body.id}/shipments`, { json: { carrier: "DHL", trackingNumber: "SHARED-1" } })).status).toBe(201);
  });
});
