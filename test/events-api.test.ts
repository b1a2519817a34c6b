// GET /v1/events reads the tenant's event log; GET /v1/event-kinds lists the catalog;
// GET /v1/openapi.json is open.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_KINDS } from "../services/platform/events/catalog.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let customerId: string;
beforeAll(async () => {
  stack = await startStack();
  customerId = (await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Event Reader" } })).body.id;
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
    expect(Object.keys(changed.schema.properties)).toEqual(expect.arrayContaining(["id", "kind", "time", "transactionId", "orderId", "previousOrderStatus", "currentOrderStatus"]));
  });

  it("returns the tenant's events newest first, filtered by kind and time, with pagination", async () => {
    const before = new Date().toISOString();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await request(`${stack.baseUrl}/orders`, {
        token: stack.token,
        json: { shortId: `EV-${n}`, customerId, currency: "EUR", orderItems: [{ productId: "prd_1", quantity: 1, price: "1.00" }] },
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
    const second = await request(`${stack.baseUrl}/events?kind=order.created&limit=2&after=${encodeURIComponent(before)}&cursor=${first.body.nextCursor}`, { token: stack.token });
    expect(second.body.data.map((e: { orderId: string }) => e.orderId)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();

    const unknownKind = await request(`${stack.baseUrl}/events?kind=order.exploded`, { token: stack.token });
    expect(unknownKind.status).toBe(400);
  });

  it("serves the OpenAPI document without a token", async () => {
    const answer = await request(`${stack.edge.url}/v1/openapi.json`);
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toBe("3.1.0");
    expect(Object.keys(answer.body.paths)).toEqual(expect.arrayContaining(["/orders", "/orders/{id}", "/events", "/event-kinds"]));
  });
});
