// /v1/customers over HTTP: create, read, list, update, validation, events, and orders that
// must name an existing customer of their tenant.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Customer, Order } from "@waybill/sdk";
import { client, createCustomer, createStockedProduct, eventsUntil, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let call: Call;
let productId: string;
beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
  productId = await createStockedProduct(call, 0);
});
afterAll(async () => {
  await stack?.stop();
});

const address = { line1: "Hauptstraße 1", city: "Berlin", postalCode: "10115", country: "DE" };

describe("POST /v1/customers", () => {
  it("creates a customer with every optional field answered, and emits customer.created", async () => {
    const created = await call("/customers", { json: { name: "  Ada Lovelace ", email: "ada@example.com", phone: "+44 20 7946 0000", address } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^cus_[0-9a-z]{26}$/),
      name: "Ada Lovelace",
      email: "ada@example.com",
      phone: "+44 20 7946 0000",
      address: { line1: "Hauptstraße 1", line2: null, city: "Berlin", region: null, postalCode: "10115", country: "DE" },
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(created.headers.get("location")).toBe(`/v1/customers/${created.body.id}`);
    expect((await call(`/customers/${created.body.id}`)).body).toEqual(created.body);

    const [event] = await eventsUntil(stack, (e) => e.customerId === created.body.id, ["customer.created"]);
    expect(event).toMatchObject({
      kind: "customer.created",
      customerId: created.body.id,
      name: "Ada Lovelace",
      email: "ada@example.com",
      address: created.body.address,
    });
  });

  it("needs only a name", async () => {
    const created = await call("/customers", { json: { name: "Walk-in" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Walk-in", email: null, phone: null, address: null });
  });

  it.each([
    [{}, "name"],
    [{ name: "   " }, "name"],
    [{ name: "A", email: "not-an-email" }, "email"],
    [{ name: "A", phone: "call me" }, "phone"],
    [{ name: "A", address: { line1: "x", city: "y", country: "Germany" } }, "address.country"],
    [{ name: "A", address: { city: "y", country: "DE" } }, "address.line1"],
    [{ name: "A", nickname: "B" }, ""],
  ])("answers 422 to %j naming %s", async (json, path) => {
    const answer = await call("/customers", { json });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe("validation_failed");
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it("replays a retried create with the same Idempotency-Key", async () => {
    const headers = { "idempotency-key": "customer-retry-1" };
    const first = await call("/customers", { json: { name: "Once" }, headers });
    const again = await call("/customers", { json: { name: "Once" }, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await call("/customers", { json: { name: "Twice" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
  });
});

describe("GET /v1/customers", () => {
  it("lists newest first with cursor pagination", async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await createCustomer(call, { name: `Paged ${i}` }));
    const first = await call("/customers?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.data.map((c: Customer) => c.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(`/customers?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.data[0].id).toBe(ids[0]);
    expect((await call("/customers?cursor=nonsense")).status).toBe(400);
    expect((await call("/customers?limit=0")).status).toBe(400);
  });

  it("answers 404 customer_not_found", async () => {
    const missing = await call("/customers/cus_01jc0000000000000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("customer_not_found");
  });
});

describe("PUT /v1/customers/{id}", () => {
  it("changes and clears fields, emitting customer.updated with what changed", async () => {
    const id = await createCustomer(call, { name: "Grace", email: "grace@example.com", phone: "+1 555 0100" });
    const updated = await call(`/customers/${id}`, { method: "PUT", json: { name: "Grace Hopper", phone: null, address } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      id,
      name: "Grace Hopper",
      email: "grace@example.com",
      phone: null,
      address: { ...address, line2: null, region: null },
    });

    // The same values again change nothing and emit nothing.
    const unchanged = await call(`/customers/${id}`, { method: "PUT", json: { name: "Grace Hopper" } });
    expect(unchanged.body.updatedAt).toBe(updated.body.updatedAt);

    const events = await eventsUntil(stack, (e) => e.customerId === id, ["customer.updated"]);
    expect(events.map((e) => e.kind)).toEqual(["customer.created", "customer.updated"]);
    expect(events[1]).toMatchObject({ name: "Grace Hopper", phone: null, changedFields: ["name", "phone", "address"] });
  });

  it("refuses an empty body, a null name and an unknown customer", async () => {
    const id = await createCustomer(call);
    expect((await call(`/customers/${id}`, { method: "PUT", json: {} })).status).toBe(422);
    const nullName = await call(`/customers/${id}`, { method: "PUT", json: { name: null } });
    expect(nullName.status).toBe(422);
    expect(nullName.body.errors[0].path).toBe("name");
    expect((await call("/customers/cus_01jc0000000000000000000000", { method: "PUT", json: { name: "X" } })).status).toBe(404);
  });
});

describe("orders name an existing customer", () => {
  const order = (customerId: string) => ({
    shortId: `C-${customerId.slice(-6)}`,
    customerId,
    currency: "EUR",
    orderItems: [{ productId, quantity: 1, price: "1.00" }],
  });

  it("answers 422 with errors path customerId for an unknown customer", async () => {
    const answer = await call("/orders", { json: order("cus_01jc0000000000000000000000") });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([{ path: "customerId", message: "no such customer" }]);
  });

  it("accepts a known one, filters orders by it, and changes it with PUT", async () => {
    const first = await createCustomer(call);
    const second = await createCustomer(call);
    const created = await call("/orders", { json: order(first) });
    expect(created.status).toBe(201);
    expect((await call(`/orders?customerId=${first}`)).body.data.map((o: Order) => o.id)).toEqual([created.body.id]);

    const moved = await call(`/orders/${created.body.id}`, { method: "PUT", json: { customerId: second } });
    expect(moved.status).toBe(200);
    expect(moved.body.customerId).toBe(second);
    expect((await call(`/orders?customerId=${first}`)).body.data).toEqual([]);
    const unknown = await call(`/orders/${created.body.id}`, { method: "PUT", json: { customerId: "cus_01jc0000000000000000000000" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].path).toBe("customerId");
  });
});
