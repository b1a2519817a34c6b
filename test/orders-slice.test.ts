// One slice through every layer: HTTP → edge → orders (gRPC) → outbox → JetStream → dispatcher.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readStream } from "./support/bus.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let customerId: string;
// Orders name existing products of their tenant too.
let p1: string;
let p2: string;
beforeAll(async () => {
  stack = await startStack();
  // Orders name an existing customer of their tenant.
  customerId = (await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Slice Customer" } })).body.id;
  p1 = (
    await request(`${stack.baseUrl}/products`, {
      token: stack.token,
      json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
    })
  ).body.id;
  p2 = (
    await request(`${stack.baseUrl}/products`, {
      token: stack.token,
      json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
    })
  ).body.id;
});
afterAll(async () => {
  await stack?.stop();
});

const newOrder = (shortId: string) => ({
  shortId,
  customerId,
  dueDate: "2026-12-24T12:00:00Z",
  currency: "EUR",
  orderItems: [
    { productId: p1, quantity: 3, price: "19.99" },
    { productId: p2, quantity: 1, price: 0.1 },
  ],
});

describe("POST /v1/orders", () => {
  it("creates a pending order with exact money and reads it back", async () => {
    const created = await request(`${stack.baseUrl}/orders`, { token: stack.token, json: newOrder("SLICE-1") });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      shortId: "SLICE-1",
      status: "pending",
      currency: "EUR",
      total: "60.07",
      dueDate: "2026-12-24T12:00:00.000Z",
      orderItems: [
        { productId: p1, quantity: 3, price: "19.99" },
        { productId: p2, quantity: 1, price: "0.10" },
      ],
    });
    expect(created.body.id).toMatch(/^ord_[0-9a-z]{26}$/);
    expect(created.headers.get("location")).toBe(`/v1/orders/${created.body.id}`);
    expect(created.headers.get("x-request-id")).toMatch(/^req_/);

    const read = await request(`${stack.baseUrl}/orders/${created.body.id}`, { token: stack.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("publishes exactly one order.created to EVENTS, which the dispatcher records", async () => {
    const created = await request(`${stack.baseUrl}/orders`, { token: stack.token, json: newOrder("SLICE-2"), headers: { "x-request-id": "trace-me-42" } });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toBe("trace-me-42");
    const orderId = created.body.id;

    const events = await eventually(async () => {
      const all = await readStream(stack.env.natsUrl, stack.env.topology.eventsStream);
      const mine = all.filter((m) => m.json.orderId === orderId);
      return mine.length > 0 ? mine : undefined;
    });
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event.subject).toMatch(/\.events\.ten_[0-9a-z]{26}\.order\.created$/);
    expect(event.json).toMatchObject({ kind: "order.created", orderId, shortId: "SLICE-2", total: "60.07", status: "pending" });
    expect(event.json.id).toMatch(/^evt_/);
    expect(event.json.transactionId).toMatch(/^txn_/);
    expect(event.headers.transactionId).toBe(event.json.transactionId);
    expect(event.headers["Nats-Msg-Id"]).toBe(event.json.id);

    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    try {
      const logged = await eventually(async () => {
        const { rows } = await db.query("SELECT id, kind, transaction_id FROM dispatcher.event_log WHERE id = $1", [event.json.id]);
        return rows[0];
      });
      expect(logged).toEqual({ id: event.json.id, kind: "order.created", transaction_id: event.json.transactionId });
    } finally {
      await db.end();
    }
  });

  it("answers 409 duplicate_short_id for a shortId already used in the tenant", async () => {
    expect((await request(`${stack.baseUrl}/orders`, { token: stack.token, json: newOrder("SLICE-DUP") })).status).toBe(201);
    const again = await request(`${stack.baseUrl}/orders`, { token: stack.token, json: newOrder("SLICE-DUP") });
    expect(again.status).toBe(409);
    expect(again.headers.get("content-type")).toContain("application/problem+json");
    expect(again.body.code).toBe("duplicate_short_id");
  });

  it("answers 404 for an order that does not exist", async () => {
    const missing = await request(`${stack.baseUrl}/orders/ord_01jc0000000000000000000000`, { token: stack.token });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("order_not_found");
  });
});

describe("GET /v1/products", () => {
  it("lists the tenant's products with pagination fields", async () => {
    const answer = await request(`${stack.baseUrl}/products?limit=5`, { token: stack.token });
    expect(answer.status).toBe(200);
    // The two products the orders above name, newest first.
    expect(answer.body).toEqual({ data: [expect.objectContaining({ id: p2 }), expect.objectContaining({ id: p1 })], nextCursor: null });
  });
});
