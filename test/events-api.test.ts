// GET /v1/events reads the tenant's event log; GET /v1/event-kinds lists the catalog;
// GET /v1/openapi.json is open.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_KINDS } from "@waybill/contracts/events/catalog.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

/** The fields of GET /v1/events entries these tests read (payload fields sit flat beside the envelope). */
interface LoggedEvent {
  id: string;
  kind: string;
  orderId?: string;
}

let stack: Stack;
let customerId: string;
let productId: string;
beforeAll(async () => {
  stack = await startStack();
  customerId = (await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Event Reader" } })).body.id;
  productId = (
    await request(`${stack.baseUrl}/products`, {
      token: stack.token,
      json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
    })
  ).body.id;
});
afterAll(async () => {
  await stack?.stop();
});

describe("event log and catalog", () => {
  it("lists every catalog kind with a JSON Schema of its payload", async () => {
    const answer = await request(`${stack.baseUrl}/event-kinds`, { token: stack.token });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((k: { kind: string }) => k.kind).sort()).toEqual([...EVENT_KINDS].sort());
    const changed = answer.body.data.find((k: { kind: string }) => k.kind === "order.status.changed");
    expect(Object.keys(changed.schema.properties)).toEqual(
      expect.arrayContaining(["id", "kind", "time", "transactionId", "orderId", "previousOrderStatus", "currentOrderStatus"]),
    );
  });

  it("returns the tenant's events newest first, filtered by kind and time, with pagination", async () => {
    const before = new Date().toISOString();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await request(`${stack.baseUrl}/orders`, {
        token: stack.token,
        json: { shortId: `EV-${n}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "1.00" }] },
      });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const all = await eventually(async () => {
      const answer = await request(`${stack.baseUrl}/events?kind=order.created&after=${encodeURIComponent(before)}`, { token: stack.token });
      return answer.body.data?.length === 3 ? answer.body : undefined;
    });
    expect(all.data.map((e: { orderId: string }) => e.orderId)).toEqual([...ids].reverse());
    expect(all.nextCursor).toBeNull();

    const first = await request(`${stack.baseUrl}/events?kind=order.created&limit=2&after=${encodeURIComponent(before)}`, { token: stack.token });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await request(`${stack.baseUrl}/events?kind=order.created&limit=2&after=${encodeURIComponent(before)}&cursor=${first.body.nextCursor}`, {
      token: stack.token,
    });
    expect(second.body.data.map((e: { orderId: string }) => e.orderId)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();

    const unknownKind = await request(`${stack.baseUrl}/events?kind=order.exploded`, { token: stack.token });
    expect(unknownKind.status).toBe(400);
  });

  it("resumes after an event id: exactly the later events, those of the same millisecond included", async () => {
    const get = (query: string) => request(`${stack.baseUrl}/events?${query}`, { token: stack.token });
    const created = await request(`${stack.baseUrl}/orders`, {
      token: stack.token,
      json: { shortId: "EV-RESUME", customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "1.00" }] },
    });
    // Cancelling writes order.status.changed and order.cancelled together: usually the same millisecond.
    expect((await request(`${stack.baseUrl}/orders/${created.body.id}/status`, { token: stack.token, json: { status: "cancelled" } })).status).toBe(200);
    const log = await eventually(async () => {
      const answer = await get("limit=100");
      return answer.body.data?.some((e: LoggedEvent) => e.kind === "order.cancelled" && e.orderId === created.body.id) ? answer.body.data : undefined;
    });
    const changed = log.find((e: LoggedEvent) => e.kind === "order.status.changed" && e.orderId === created.body.id);
    const cancelled = log.find((e: LoggedEvent) => e.kind === "order.cancelled" && e.orderId === created.body.id);

    const resumed = await get(`after=${changed.id}&limit=100`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.map((e: LoggedEvent) => e.id)).toEqual(log.filter((e: LoggedEvent) => e.id > changed.id).map((e: LoggedEvent) => e.id));
    expect(resumed.body.data.map((e: LoggedEvent) => e.id)).toContain(cancelled.id);
    expect(resumed.body.data.map((e: LoggedEvent) => e.id)).not.toContain(changed.id);
    expect((await get(`after=${cancelled.id}&kind=order.cancelled`)).body.data).toEqual([]);
    expect((await get(`after=${log[log.length - 1].id}&limit=100`)).body.data).toHaveLength(log.length - 1);

    // A date is its midnight UTC; a date-time with an offset is accepted as before.
    expect((await get("after=2000-01-01&limit=100")).body.data).toHaveLength(log.length);
    expect((await get(`after=${encodeURIComponent("2999-01-01T00:00:00+02:00")}`)).body.data).toEqual([]);
    for (const bad of ["evt_123", "evt_01JC0000000000000000000000", "ord_01jc0000000000000000000000", "yesterday", "2026-13-01", "1700000000"]) {
      const refused = await get(`after=${encodeURIComponent(bad)}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.code).toBe("invalid_query");
    }
  });

  it("documents both forms of after in the OpenAPI document", async () => {
    const document = (await request(`${stack.edge.url}/v1/openapi.json`)).body;
    const after = document.paths["/events"].get.parameters.find((p: { name: string }) => p.name === "after");
    expect(after.schema.description).toMatch(/event id \(evt_…\)/);
    expect(after.schema.description).toMatch(/date-time or date/);
  });

  it("serves the OpenAPI document without a token", async () => {
    const answer = await request(`${stack.edge.url}/v1/openapi.json`);
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe("3.1.0");
    expect(Object.keys(answer.body.paths)).toEqual(expect.arrayContaining(["/orders", "/orders/{id}", "/events", "/event-kinds"]));
  });
});
