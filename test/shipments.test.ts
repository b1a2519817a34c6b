// /v1/shipments over HTTP: which orders can ship, tracking numbers, items, the status machine
// and its timeline, lookups and the exception path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Shipment } from "@waybill/sdk";
import { allEvents, client, createCustomer, createOrder, createStockedProduct, eventsUntil, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let call: Call;
let customerId: string;
let productId: string;
beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 1_000);
});
afterAll(async () => {
  await stack?.stop();
});

let tracking = 0;
const nextTracking = () => `TRK-${Date.now()}-${tracking++}`;

async function readyOrder(quantity = 2) {
  const order = await createOrder(call, customerId, [{ productId, quantity }]);
  expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
  return order;
}

async function ship(orderId: string, json: Record<string, unknown> = {}) {
  return call(`/orders/${orderId}/shipments`, { json: { carrier: "GLS", trackingNumber: nextTracking(), ...json } });
}

describe("POST /v1/orders/{id}/shipments", () => {
  it("refuses orders that are not ready or inProgress with 409 order_not_shippable", async () => {
    const pending = await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    const refused = await ship(pending.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("order_not_shippable");
    expect((await setOrderStatus(call, pending.id, "cancelled")).status).toBe(200);
    expect((await ship(pending.id)).body.code).toBe("order_not_shippable");
    expect((await ship("ord_01jc0000000000000000000000")).status).toBe(404);
  });

  it("answers 409 duplicate_tracking_number for a tracking number already used in the tenant", async () => {
    const order = await readyOrder(4);
    const trackingNumber = nextTracking();
    expect((await ship(order.id, { trackingNumber, items: [{ productId, quantity: 1 }] })).status).toBe(201);
    const again = await ship(order.id, { trackingNumber, items: [{ productId, quantity: 1 }] });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("duplicate_tracking_number");
  });

  it("checks items against what the order has left to ship", async () => {
    const order = await readyOrder(2);
    const foreign = await ship(order.id, { items: [{ productId: "prd_01jc0000000000000000000009", quantity: 1 }] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors).toEqual([{ path: "items.0.productId", message: "not a product of this order" }]);
    const tooMany = await ship(order.id, { items: [{ productId, quantity: 3 }] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors[0].path).toBe("items.0.quantity");
    expect((await ship(order.id)).status).toBe(201);
    const nothingLeft = await ship(order.id);
    expect(nothingLeft.status).toBe(409);
    expect(nothingLeft.body.code).toBe("order_fully_shipped");
  });

  it.each([
    [{}, ["carrier", "trackingNumber"]],
    [{ carrier: "", trackingNumber: "has spaces" }, ["carrier", "trackingNumber"]],
    [{ carrier: "X", trackingNumber: "T1", items: [] }, ["items"]],
    [{ carrier: "X", trackingNumber: "T1", items: [{ productId: "p", quantity: 0 }] }, ["items.0.quantity"]],
  ])("answers 422 to %j", async (json, paths) => {
    const order = await readyOrder(1);
    const answer = await call(`/orders/${order.id}/shipments`, { json });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(paths));
  });

  it("replays a retried create with the same Idempotency-Key and creates nothing twice", async () => {
    const order = await readyOrder(2);
    const json = { carrier: "GLS", trackingNumber: nextTracking(), items: [{ productId, quantity: 1 }] };
    const headers = { "idempotency-key": `ship-${order.id}` };
    const first = await call(`/orders/${order.id}/shipments`, { json, headers });
    const again = await call(`/orders/${order.id}/shipments`, { json, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect((await call(`/shipments?orderId=${order.id}`)).body.data).toHaveLength(1);
    const reused = await call(`/orders/${order.id}/shipments`, { json: { ...json, carrier: "DPD" }, headers });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe("idempotency_key_reused");
  });
});

describe("shipment status", () => {
  it("follows pending → inTransit → exception → inTransit → delivered, recording each step", async () => {
    const order = await readyOrder(1);
    const { body: shipment } = await ship(order.id);
    const move = (json: Record<string, unknown>) => call(`/shipments/${shipment.id}/status`, { json });

    expect((await move({ status: "delivered" })).body.code).toBe("invalid_status_transition");
    expect((await move({ status: "pending" })).status).toBe(409);
    expect((await move({ status: "inTransit", location: "Hamburg" })).status).toBe(200);
    expect((await move({ status: "inTransit" })).status).toBe(409);
    const exception = await move({ status: "exception", location: "Hamburg", note: "address unreadable" });
    expect(exception.status).toBe(200);
    expect((await move({ status: "delivered" })).status).toBe(409);
    expect((await move({ status: "inTransit", note: "address fixed" })).status).toBe(200);
    const done = await move({ status: "delivered", location: "Berlin" });
    expect(done.status).toBe(200);
    expect(done.body.deliveredAt).toMatch(/Z$/);
    expect(done.body.timeline.map((t: Shipment["timeline"][number]) => t.status)).toEqual(["pending", "inTransit", "exception", "inTransit", "delivered"]);
    expect(done.body.timeline[2]).toMatchObject({ location: "Hamburg", note: "address unreadable" });
    for (const status of ["pending", "inTransit", "exception", "delivered"]) expect((await move({ status })).status).toBe(409);
    expect((await call(`/shipments/${shipment.id}/delivery`, { json: {} })).body.code).toBe("invalid_status_transition");
    expect((await call(`/orders/${order.id}`)).body.status).toBe("completed");

    const events = await eventsUntil(stack, (e) => e.shipmentId === shipment.id, ["shipment.exception", "shipment.delivered"]);
    expect(events.map((e) => e.kind)).toEqual([
      "shipment.created",
      "shipment.status.changed",
      "shipment.status.changed",
      "shipment.exception",
      "shipment.status.changed",
      "shipment.status.changed",
      "shipment.delivered",
    ]);
    const raised = events.find((e) => e.kind === "shipment.exception");
    expect(raised).toMatchObject({
      orderId: order.id,
      status: "exception",
      location: "Hamburg",
      note: "address unreadable",
      trackingNumber: shipment.trackingNumber,
    });
    expect(events[2].transactionId).toBe(raised.transactionId);
  });

  it("a delivered partial shipment leaves the order inProgress with the rest of its stock reserved; the rest completes it", async () => {
    const widget = await createStockedProduct(call, 10);
    const gadget = await createStockedProduct(call, 10);
    const order = await createOrder(call, customerId, [
      { productId: widget, quantity: 4 },
      { productId: gadget, quantity: 1 },
    ]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const deliver = async (shipmentId: string) => {
      expect((await call(`/shipments/${shipmentId}/status`, { json: { status: "inTransit" } })).status).toBe(200);
      const delivered = await call(`/shipments/${shipmentId}/delivery`, { json: {} });
      expect(delivered.status, JSON.stringify(delivered.body)).toBe(200);
    };

    // The only shipment so far carries one of four widgets and no gadget; it is delivered.
    const partial = await ship(order.id, { items: [{ productId: widget, quantity: 1 }] });
    expect(partial.status).toBe(201);
    await deliver(partial.body.id);
    expect((await call(`/orders/${order.id}`)).body.status).toBe("inProgress");
    expect(await stockOf(call, widget)).toEqual({ onHand: 10, reserved: 4, available: 6 });
    expect(await stockOf(call, gadget)).toEqual({ onHand: 10, reserved: 1, available: 9 });

    // The second shipment, without items, carries the rest; its delivery completes the order.
    const rest = await ship(order.id);
    expect(rest.body.items).toEqual([
      { productId: widget, quantity: 3 },
      { productId: gadget, quantity: 1 },
    ]);
    await deliver(rest.body.id);
    expect((await call(`/orders/${order.id}`)).body.status).toBe("completed");
    expect(await stockOf(call, widget)).toEqual({ onHand: 6, reserved: 0, available: 6 });
    expect(await stockOf(call, gadget)).toEqual({ onHand: 9, reserved: 0, available: 9 });

    const events = await eventually(async () => {
      const mine = (await allEvents(stack)).filter((e) => e.orderId === order.id);
      const done = mine.some((e) => e.kind === "order.completed") && mine.filter((e) => e.kind === "inventory.consumed").length === 2;
      return done ? mine : undefined;
    });
    const deliveries = events.filter((e) => e.kind === "shipment.delivered");
    expect(deliveries.map((e) => e.shipmentId)).toEqual([partial.body.id, rest.body.id]);
    // The first delivery completed nothing and consumed nothing.
    expect(events.filter((e) => e.transactionId === deliveries[0].transactionId).map((e) => e.kind)).toEqual(["shipment.status.changed", "shipment.delivered"]);
    // The last one: its shipment's events, the order's completion and the consumption, one transaction.
    const completing = events.filter((e) => e.transactionId === deliveries[1].transactionId).map((e) => e.kind);
    expect(completing.filter((k) => !k.startsWith("inventory."))).toEqual([
      "shipment.status.changed",
      "shipment.delivered",
      "order.status.changed",
      "order.completed",
    ]);
    expect(completing.filter((k) => k.startsWith("inventory."))).toEqual(["inventory.consumed", "inventory.consumed"]);
    expect(events.filter((e) => e.kind === "order.completed")).toHaveLength(1);
  });

  it("answers 422 to bad bodies and 404 to unknown shipments", async () => {
    const order = await readyOrder(1);
    const { body: shipment } = await ship(order.id);
    expect((await call(`/shipments/${shipment.id}/status`, { json: { status: "lost" } })).status).toBe(422);
    expect((await call(`/shipments/${shipment.id}/status`, { json: { status: "inTransit", location: 5 } })).status).toBe(422);
    expect((await call(`/shipments/${shipment.id}/delivery`, { json: { deliveredAt: "yesterday" } })).status).toBe(422);
    const future = await call(`/shipments/${shipment.id}/status`, { json: { status: "inTransit" } });
    expect(future.status).toBe(200);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const ahead = await call(`/shipments/${shipment.id}/delivery`, { json: { deliveredAt: tomorrow } });
    expect(ahead.status).toBe(422);
    expect(ahead.body.errors[0].path).toBe("deliveredAt");
    const missing = await call("/shipments/shp_01jc0000000000000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("shipment_not_found");
    expect((await call("/shipments/shp_01jc0000000000000000000000/status", { json: { status: "inTransit" } })).status).toBe(404);
  });
});

describe("GET /v1/shipments", () => {
  it("filters by order and status, newest first, with cursor pagination", async () => {
    const order = await readyOrder(3);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await ship(order.id, { items: [{ productId, quantity: 1 }] })).body.id);
    expect((await call(`/shipments/${ids[0]}/status`, { json: { status: "inTransit" } })).status).toBe(200);

    const page1 = await call(`/shipments?orderId=${order.id}&limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((s: Shipment) => s.id)).toEqual([ids[2], ids[1]]);
    const page2 = await call(`/shipments?orderId=${order.id}&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toEqual({ data: [expect.objectContaining({ id: ids[0], status: "inTransit" })], nextCursor: null });
    expect((await call(`/shipments?orderId=${order.id}&status=inTransit`)).body.data.map((s: Shipment) => s.id)).toEqual([ids[0]]);
    expect((await call(`/shipments?orderId=${order.id}&status=pending`)).body.data).toHaveLength(2);
    expect((await call("/shipments?status=lost")).status).toBe(400);
  });
});
