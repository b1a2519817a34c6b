// Helpers the order, shipment and customer tests share: create what an order needs over HTTP
// and read the events of one transaction from the bus.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect } from "vitest";
import type { Order, StockLevel } from "@waybill/sdk";
import { newId } from "@waybill/platform/ids.js";
import { readStream, type StoredMessage } from "./support/bus.js";
import { eventually, request, type Answer } from "./support/http.js";
import type { Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

export type Call = (path: string, init?: { method?: string; json?: unknown; headers?: Record<string, string> }) => Promise<Answer>;

/** An HTTP client bound to the stack's base URL and one token. */
export function client(stack: Stack, token = stack.token): Call {
  return (path, init = {}) => request(`${stack.baseUrl}${path}`, { token, ...init });
}

const unique = () => randomBytes(4).toString("hex").toUpperCase();

export async function createCustomer(call: Call, fields: Record<string, unknown> = {}): Promise<string> {
  const answer = await call("/customers", { json: { name: `Customer ${unique()}`, ...fields } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id;
}

/** A product with `onHand` units in the default location. */
export async function createStockedProduct(call: Call, onHand: number): Promise<string> {
  const product = await call("/products", { json: { sku: `SKU-${unique()}`, name: "Widget", price: "2.50", currency: "EUR" } });
  expect(product.status, JSON.stringify(product.body)).toBe(201);
  if (onHand > 0) {
    const adjusted = await call("/inventory/adjustments", { json: { productId: product.body.id, delta: onHand, reason: "initial count" } });
    expect(adjusted.status, JSON.stringify(adjusted.body)).toBe(201);
  }
  return product.body.id;
}

export async function createOrder(call: Call, customerId: string, items: { productId: string; quantity: number; price?: string }[]): Promise<Order> {
  const answer = await call("/orders", {
    json: { shortId: `ORD-${unique()}`, customerId, currency: "EUR", orderItems: items.map((i) => ({ price: "2.50", ...i })) },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

export async function setOrderStatus(call: Call, orderId: string, status: string) {
  return call(`/orders/${orderId}/status`, { json: { status } });
}

/** Stock of one product summed over its locations. */
export async function stockOf(call: Call, productId: string): Promise<{ onHand: number; reserved: number; available: number }> {
  const answer = await call(`/inventory?productId=${productId}`);
  expect(answer.status).toBe(200);
  const sum = (key: "onHand" | "reserved" | "available") => answer.body.data.reduce((n: number, level: StockLevel) => n + level[key], 0);
  return { onHand: sum("onHand"), reserved: sum("reserved"), available: sum("available") };
}

/** The stack's EVENTS stream as envelopes, in stream order. */
// biome-ignore lint/suspicious/noExplicitAny: events of every kind, as tests read the fields of the kinds they look for
export async function allEvents(stack: Stack): Promise<any[]> {
  return (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).map((m: StoredMessage) => m.json);
}

/**
 * Waits until the events matching `select` include every kind in `kinds`, then returns them
 * (in stream order). Different services relay on their own, so it polls.
 */
// biome-ignore lint/suspicious/noExplicitAny: the same loose events as allEvents
export async function eventsUntil(stack: Stack, select: (event: any) => boolean, kinds: string[]): Promise<any[]> {
  return eventually(async () => {
    const mine = (await allEvents(stack)).filter(select);
    return kinds.every((kind) => mine.some((e) => e.kind === kind)) ? mine : undefined;
  }, 15_000);
}

/** Another tenant with an api token: for isolation tests, and tests side by side on one stack. */
export async function otherTenant(stack: Stack): Promise<{ tenantId: string; token: string }> {
  const tenantId = newId("ten");
  const db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  try {
    await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, $2)", [tenantId, `other-${unique()}`]);
  } finally {
    await db.end();
  }
  const { token } = await issueToken(stack.env.databaseUrl, "api", { tenantId });
  return { tenantId, token };
}
