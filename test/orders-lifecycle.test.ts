// An order's whole life over HTTP, checked on the bus: pending → ready (stock reserved) →
// inProgress (its first shipment) → completed (the shipment's delivery), and the cancel and
// refusal paths. Each operation's events, whichever service wrote them, share one transactionId;
// a client groups several requests into one operation with X-Transaction-Id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Shipment } from "@waybill/sdk";
import { allEvents, client, createCustomer, createOrder, createStockedProduct, eventsUntil, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let call: Call;
let customerId: string;
beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
  customerId = await createCustomer(call, { email: "buyer@example.com" });
});
afterAll(async () => {
  await stack?.stop();
});

/** The events of one operation: everything that carries `transactionId`, in stream order. */
function ofTransaction<E extends { transactionId?: unknown }>(events: E[], transactionId: string): E[] {
  return events.filter((e) => e.transactionId === transactionId);
}

describe("an order from pending to completed", () => {
  it("reserves on ready, starts on the first shipment, completes on its delivery — one transactionId per operation", async () => {
    const productId = await createStockedProduct(call, 10);
    // Creating the order and making it ready is one operation of the client's: one transaction id.
    const clientTransaction = { "x-transaction-id": "txn_LifecycleCreateAndReserve01" };
    const createdAnswer = await call("/orders", {
      json: { shortId: "LIFE-1", customerId, currency: "EUR", orderItems: [{ productId, quantity: 3, price: "4.20" }] },
      headers: clientTransaction,
    });
    expect(createdAnswer.status, JSON.stringify(createdAnswer.body)).toBe(201);
    expect(createdAnswer.headers.get("x-transaction-id")).toBe(clientTransaction["x-transaction-id"]);
    const order = createdAnswer.body;
    expect(order).toMatchObject({ status: "pending", total: "12.60", customerId });

    // pending → ready: inventory reserves the stock in the same operation.
    const ready = await call(`/orders/${order.id}/status`, { json: { status: "ready" }, headers: clientTransaction });
    expect(ready.status, JSON.stringify(ready.body)).toBe(200);
    expect(ready.headers.get("x-transaction-id")).toBe(clientTransaction["x-transaction-id"]);
    expect(ready.body).toMatchObject({ id: order.id, status: "ready" });
    expect(await stockOf(call, productId)).toEqual({ onHand: 10, reserved: 3, available: 7 });

    // ready → inProgress: the first shipment.
    const shipped = await call(`/orders/${order.id}/shipments`, { json: { carrier: "DHL", trackingNumber: "TRACK-LIFE-1" } });
    expect(shipped.status, JSON.stringify(shipped.body)).toBe(201);
    const shipment = shipped.body;
    expect(shipment).toMatchObject({
      orderId: order.id,
      carrier: "DHL",
      trackingNumber: "TRACK-LIFE-1",
      status: "pending",
      items: [{ productId, quantity: 3 }],
      deliveredAt: null,
      receivedBy: null,
      timeline: [{ status: "pending", location: null, note: null }],
    });
    expect(shipment.id).toMatch(/^shp_[0-9a-z]{26}$/);
    expect(shipped.headers.get("location")).toBe(`/v1/shipments/${shipment.id}`);
    expect((await call(`/orders/${order.id}`)).body.status).toBe("inProgress");

    const moving = await call(`/shipments/${shipment.id}/status`, { json: { status: "inTransit", location: "Hub Leipzig" } });
    expect(moving.status, JSON.stringify(moving.body)).toBe(200);
    expect(moving.body.status).toBe("inTransit");

    // The delivery completes the shipment, and with it the order: stock is consumed.
    const delivered = await call(`/shipments/${shipment.id}/delivery`, { json: { receivedBy: "Ada Lovelace", note: "left at reception" } });
    expect(delivered.status, JSON.stringify(delivered.body)).toBe(200);
    expect(delivered.body).toMatchObject({ status: "delivered", receivedBy: "Ada Lovelace" });
    expect(delivered.body.deliveredAt).toMatch(/Z$/);
    expect(delivered.body.timeline.map((t: Shipment["timeline"][number]) => [t.status, t.location, t.note])).toEqual([
      ["pending", null, null],
      ["inTransit", "Hub Leipzig", null],
      ["delivered", null, "left at reception"],
    ]);
    expect(delivered.body.timeline[2].at).toBe(delivered.body.deliveredAt);
    expect((await call(`/orders/${order.id}`)).body.status).toBe("completed");
    expect(await stockOf(call, productId)).toEqual({ onHand: 7, reserved: 0, available: 7 });
    expect((await call(`/shipments/${shipment.id}`)).body).toEqual(delivered.body);

    // On the bus: every event of this order, kinds in order within each service.
    const events = await eventsUntil(stack, (e) => e.orderId === order.id, ["order.completed", "inventory.consumed", "inventory.reserved"]);
    const fromOrders = events.filter((e) => !e.kind.startsWith("inventory."));
    expect(fromOrders.map((e) => e.kind)).toEqual([
      "order.created",
      "order.status.changed",
      "shipment.created",
      "order.status.changed",
      "shipment.status.changed",
      "shipment.status.changed",
      "shipment.delivered",
      "order.status.changed",
      "order.completed",
    ]);
    expect(events.filter((e) => e.kind.startsWith("inventory.")).map((e) => e.kind)).toEqual(["inventory.reserved", "inventory.consumed"]);
    for (const event of events) {
      expect(event.id).toMatch(/^evt_/);
      expect(event.transactionId).toMatch(/^txn_/);
      expect(event.time).toMatch(/Z$/);
    }
    const statusChanges = fromOrders.filter((e) => e.kind === "order.status.changed");
    expect(statusChanges.map((e) => [e.previousOrderStatus, e.currentOrderStatus])).toEqual([
      ["pending", "ready"],
      ["ready", "inProgress"],
      ["inProgress", "completed"],
    ]);
    for (const e of statusChanges)
      expect(Object.keys(e).sort()).toEqual(["currentOrderStatus", "id", "kind", "orderId", "previousOrderStatus", "time", "transactionId"]);

    const [toReady, toInProgress, toCompleted] = statusChanges.map((e) => e.transactionId);
    const created = fromOrders[0].transactionId;
    const shipmentMoves = fromOrders.filter((e) => e.kind === "shipment.status.changed");
    const inTransit = shipmentMoves[0].transactionId;
    // Creation and ready under the client's id, then three operations with their own.
    expect(created).toBe(clientTransaction["x-transaction-id"]);
    expect(toReady).toBe(created);
    expect(new Set([created, toInProgress, inTransit, toCompleted]).size).toBe(4);

    const everything = await allEvents(stack);
    // Created and ready: the order, the reservation and the status change, nothing else.
    expect(
      ofTransaction(everything, toReady)
        .map((e) => e.kind)
        .sort(),
    ).toEqual(["inventory.reserved", "order.created", "order.status.changed"]);
    expect(ofTransaction(everything, toReady).find((e) => e.kind === "inventory.reserved")).toMatchObject({
      orderId: order.id,
      productId,
      quantity: 3,
      reserved: 3,
      onHand: 10,
      available: 7,
    });
    // The first shipment: its creation and the order starting.
    expect(ofTransaction(everything, toInProgress).map((e) => e.kind)).toEqual(["shipment.created", "order.status.changed"]);
    expect(ofTransaction(everything, toInProgress)[0]).toMatchObject({
      shipmentId: shipment.id,
      orderId: order.id,
      carrier: "DHL",
      trackingNumber: "TRACK-LIFE-1",
      status: "pending",
      items: [{ productId, quantity: 3 }],
    });
    expect(ofTransaction(everything, inTransit).map((e) => e.kind)).toEqual(["shipment.status.changed"]);
    expect(shipmentMoves[0]).toMatchObject({
      shipmentId: shipment.id,
      previousShipmentStatus: "pending",
      currentShipmentStatus: "inTransit",
      location: "Hub Leipzig",
      note: null,
    });
    // The delivery: the shipment's events, the order's completion and the stock consumed.
    const delivery = ofTransaction(everything, toCompleted);
    expect(delivery.filter((e) => !e.kind.startsWith("inventory.")).map((e) => e.kind)).toEqual([
      "shipment.status.changed",
      "shipment.delivered",
      "order.status.changed",
      "order.completed",
    ]);
    expect(delivery.filter((e) => e.kind.startsWith("inventory.")).map((e) => e.kind)).toEqual(["inventory.consumed"]);
    expect(delivery.find((e) => e.kind === "shipment.delivered")).toMatchObject({
      shipmentId: shipment.id,
      orderId: order.id,
      status: "delivered",
      receivedBy: "Ada Lovelace",
      deliveredAt: delivered.body.deliveredAt,
    });
    expect(delivery.find((e) => e.kind === "shipment.status.changed")).toMatchObject({
      previousShipmentStatus: "inTransit",
      currentShipmentStatus: "delivered",
      note: "left at reception",
    });
    expect(delivery.find((e) => e.kind === "order.completed")).toMatchObject({ orderId: order.id });
    expect(delivery.find((e) => e.kind === "inventory.consumed")).toMatchObject({ orderId: order.id, productId, quantity: 3, onHand: 7, reserved: 0 });
  });

  it("completes only when every shipment of the order is delivered", async () => {
    const productId = await createStockedProduct(call, 5);
    const order = await createOrder(call, customerId, [{ productId, quantity: 4 }]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const first = await call(`/orders/${order.id}/shipments`, { json: { carrier: "UPS", trackingNumber: "SPLIT-1", items: [{ productId, quantity: 1 }] } });
    const second = await call(`/orders/${order.id}/shipments`, { json: { carrier: "UPS", trackingNumber: "SPLIT-2" } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.items).toEqual([{ productId, quantity: 3 }]);
    for (const shipment of [first.body, second.body]) {
      expect((await call(`/shipments/${shipment.id}/status`, { json: { status: "inTransit" } })).status).toBe(200);
    }
    expect((await call(`/shipments/${first.body.id}/delivery`, { json: {} })).status).toBe(200);
    expect((await call(`/orders/${order.id}`)).body.status).toBe("inProgress");
    expect((await call(`/shipments/${second.body.id}/delivery`, { json: { deliveredAt: "2026-01-02T03:04:05+01:00" } })).body.deliveredAt).toBe(
      "2026-01-02T02:04:05.000Z",
    );
    expect((await call(`/orders/${order.id}`)).body.status).toBe("completed");
    expect(await stockOf(call, productId)).toEqual({ onHand: 1, reserved: 0, available: 1 });
  });
});

describe("cancelling", () => {
  it("releases what ready reserved, with order.cancelled in the same transaction", async () => {
    const productId = await createStockedProduct(call, 6);
    const order = await createOrder(call, customerId, [
      { productId, quantity: 2 },
      { productId, quantity: 1 },
    ]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    expect(await stockOf(call, productId)).toEqual({ onHand: 6, reserved: 3, available: 3 });

    const cancelled = await setOrderStatus(call, order.id, "cancelled");
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    expect(await stockOf(call, productId)).toEqual({ onHand: 6, reserved: 0, available: 6 });

    const events = await eventsUntil(stack, (e) => e.orderId === order.id, ["order.cancelled", "inventory.released"]);
    const cancel = events.find((e) => e.kind === "order.cancelled");
    expect(cancel).toMatchObject({ orderId: order.id, previousOrderStatus: "ready" });
    expect(
      ofTransaction(events, cancel.transactionId)
        .map((e) => e.kind)
        .sort(),
    ).toEqual(["inventory.released", "order.cancelled", "order.status.changed"]);
    expect(events.find((e) => e.kind === "inventory.released")).toMatchObject({ quantity: 3, reserved: 0, available: 6 });

    // Nothing leaves cancelled.
    for (const status of ["pending", "ready", "inProgress", "completed", "cancelled"]) {
      const again = await setOrderStatus(call, order.id, status);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("invalid_status_transition");
    }
  });

  it("refuses to cancel a partly delivered order with 409 order_partially_delivered, changing nothing", async () => {
    const productId = await createStockedProduct(call, 10);
    const order = await createOrder(call, customerId, [{ productId, quantity: 4 }]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const partial = await call(`/orders/${order.id}/shipments`, {
      json: { carrier: "DHL", trackingNumber: "PART-CANCEL-1", items: [{ productId, quantity: 1 }] },
    });
    expect(partial.status).toBe(201);
    expect((await call(`/shipments/${partial.body.id}/status`, { json: { status: "inTransit" } })).status).toBe(200);
    expect((await call(`/shipments/${partial.body.id}/delivery`, { json: {} })).status).toBe(200);

    const refused = await setOrderStatus(call, order.id, "cancelled");
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body.code).toBe("order_partially_delivered");
    expect((await call(`/orders/${order.id}`)).body.status).toBe("inProgress");
    expect(await stockOf(call, productId)).toEqual({ onHand: 10, reserved: 4, available: 6 });

    // An inProgress order whose shipments are all still on their way can be cancelled.
    const other = await createOrder(call, customerId, [{ productId, quantity: 2 }]);
    expect((await setOrderStatus(call, other.id, "ready")).status).toBe(200);
    expect((await call(`/orders/${other.id}/shipments`, { json: { carrier: "DHL", trackingNumber: "PART-CANCEL-2" } })).status).toBe(201);
    expect((await setOrderStatus(call, other.id, "cancelled")).body.status).toBe("cancelled");
    expect(await stockOf(call, productId)).toEqual({ onHand: 10, reserved: 4, available: 6 });
  });

  it("cancels a pending order without touching stock", async () => {
    const productId = await createStockedProduct(call, 2);
    const order = await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    expect((await setOrderStatus(call, order.id, "cancelled")).body.status).toBe("cancelled");
    expect(await stockOf(call, productId)).toEqual({ onHand: 2, reserved: 0, available: 2 });
  });
});

describe("refusals", () => {
  it("answers 409 insufficient_stock when stock is short, and the order stays pending with nothing reserved", async () => {
    const plenty = await createStockedProduct(call, 50);
    const scarce = await createStockedProduct(call, 1);
    const order = await createOrder(call, customerId, [
      { productId: plenty, quantity: 5 },
      { productId: scarce, quantity: 2 },
    ]);
    const refused = await setOrderStatus(call, order.id, "ready");
    expect(refused.status).toBe(409);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect(refused.body.code).toBe("insufficient_stock");
    expect((await call(`/orders/${order.id}`)).body.status).toBe("pending");
    expect(await stockOf(call, plenty)).toEqual({ onHand: 50, reserved: 0, available: 50 });
    expect(await stockOf(call, scarce)).toEqual({ onHand: 1, reserved: 0, available: 1 });

    // Once stock arrives the same order can move.
    expect((await call("/inventory/adjustments", { json: { productId: scarce, delta: 1, reason: "delivery" } })).status).toBe(201);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const events = await eventsUntil(stack, (e) => e.orderId === order.id, ["order.status.changed"]);
    expect(events.filter((e) => e.kind === "order.status.changed")).toHaveLength(1);
  });

  it("answers 409 invalid_status_transition to moves the machine does not have, the same status included", async () => {
    const productId = await createStockedProduct(call, 5);
    const order = await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    for (const status of ["pending", "inProgress", "completed"]) {
      const answer = await setOrderStatus(call, order.id, status);
      expect(answer.status, status).toBe(409);
      expect(answer.body.code).toBe("invalid_status_transition");
    }
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const again = await setOrderStatus(call, order.id, "ready");
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("invalid_status_transition");
    expect(await stockOf(call, productId)).toEqual({ onHand: 5, reserved: 1, available: 4 });
  });

  it("answers 422 to an unknown status and 404 to an unknown order", async () => {
    const order = await createOrder(call, customerId, [{ productId: await createStockedProduct(call, 1), quantity: 1 }]);
    const unknown = await setOrderStatus(call, order.id, "shipped");
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].path).toBe("status");
    const missing = await setOrderStatus(call, "ord_01jc0000000000000000000000", "ready");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("order_not_found");
  });

  it("moves an order manually from inProgress to completed, consuming its stock", async () => {
    const productId = await createStockedProduct(call, 3);
    const order = await createOrder(call, customerId, [{ productId, quantity: 2 }]);
    for (const status of ["ready", "inProgress", "completed"]) expect((await setOrderStatus(call, order.id, status)).body.status).toBe(status);
    expect(await stockOf(call, productId)).toEqual({ onHand: 1, reserved: 0, available: 1 });
  });
});
