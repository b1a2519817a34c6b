// Order creation's group commit on a real PostgreSQL: orders that arrive together are stored by
// one statement, and each still gets its own answer (an unknown customer or a taken shortId fails
// that order alone), with its lines and its outbox row stored with it and nothing for the others.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCustomer } from "../services/orders/customers.js";
import type { OrdersDeps } from "../services/orders/deps.js";
import { createOrderWriter, insertOrders, type OrderInsert } from "../services/orders/order-insert.js";
import { createOrder, getOrder, listOrdersJson } from "../services/orders/orders.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { AppError } from "@waybill/platform/errors.js";
import { createLogger } from "@waybill/platform/logger.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { onOutboxCommitted, type OutboxRow } from "../packages/platform/outbox-signal.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

const TENANT = "ten_01jc0000000000000000000001";
const OTHER_TENANT = "ten_01jc0000000000000000000002";
let env: TestEnvironment;
let pool: Pool;
let deps: Pick<OrdersDeps, "pool" | "topology" | "inventory" | "orderWriter" | "stockIntents" | "logger">;
let customerId: string;
let otherTenantsCustomer: string;
/** Statements the pool ran that insert orders, as the batches they were. */
let orderStatements = 0;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "orders", applicationName: "orders-insert-test" });
  await migrate(pool, "orders", [PLATFORM_MIGRATIONS_DIR, path.resolve(import.meta.dirname, "../services/orders/migrations")]);
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if ((args[0] as { name?: string }).name === "orders_insert_orders") orderStatements += 1;
    return query(...args);
  };
  deps = {
    pool,
    topology: env.topology,
    inventory: {
      missingProducts: async () => [],
      reserve: async () => ({ reserved: true }),
      release: async () => ({ released: true }),
      consume: async () => ({ consumed: true }),
    },
    orderWriter: createOrderWriter(pool),
    stockIntents: { mark: async () => {}, clear: async () => {} },
    logger: createLogger("orders-insert-test", "silent"),
  };
  customerId = (await createCustomer(deps, TENANT, { name: "Batch" })).value.id;
  otherTenantsCustomer = (await createCustomer(deps, OTHER_TENANT, { name: "Elsewhere" })).value.id;
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

const order = (shortId: string, customer = customerId) =>
  createOrder(deps, TENANT, {
    shortId,
    customerId: customer,
    dueDate: null,
    currency: "EUR",
    orderItems: [{ productId: "prd_a", quantity: 3, price: "2.50" }],
  });

async function outboxRowsOf(orderId: string): Promise<number> {
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM orders.outbox WHERE kind = 'order.created' AND event->>'orderId' = $1", [orderId]);
  return rows[0].n;
}

describe("order creation's group commit", () => {
  it("stores orders that arrive together in one statement, each with its own answer", async () => {
    await order("TAKEN-1");
    const handed: OutboxRow[] = [];
    const stopListening = onOutboxCommitted(pool, (rows) => handed.push(...(rows ?? [])));
    const before = orderStatements;
    const results = await Promise.allSettled([
      order("GROUP-1"),
      order("TAKEN-1"),
      order("GROUP-2"),
      order("GROUP-3", otherTenantsCustomer),
      order("TWICE"),
      order("TWICE"),
      order("GROUP-4"),
    ]);
    stopListening();
    // Submitted in the same turn of the event loop, they share one statement (and one commit).
    expect(orderStatements - before).toBe(1);

    const [first, taken, second, otherTenant, twice, twiceAgain, fourth] = results;
    for (const ok of [first, second, fourth, twice]) expect(ok.status).toBe("fulfilled");
    expect(taken.status === "rejected" && taken.reason).toBeInstanceOf(AppError);
    expect(taken.status === "rejected" && (taken.reason as AppError).code).toBe("duplicate_short_id");
    // A customer of another tenant is no customer of this one.
    expect(otherTenant.status === "rejected" && otherTenant.reason).toBeInstanceOf(AppError);
    expect(otherTenant.status === "rejected" && (otherTenant.reason as AppError).message).toContain("No customer");
    expect(twiceAgain.status === "rejected" && (twiceAgain.reason as AppError).code).toBe("duplicate_short_id");

    const created = [first, second, fourth, twice].map((r) => (r.status === "fulfilled" ? r.value.value : undefined)!);
    for (const o of created) {
      const stored = await getOrder(pool, TENANT, o.id);
      expect(stored).toEqual(o);
      expect(stored.orderItems).toEqual([{ productId: "prd_a", quantity: 3, price: "2.50" }]);
      expect(stored.total).toBe("7.50");
      expect(await outboxRowsOf(o.id)).toBe(1);
    }
    // Only the stored orders' events reach the relay, and nothing of the refused ones is stored.
    expect(handed.map((row) => (row.event as { orderId: string }).orderId).sort()).toEqual(created.map((o) => o.id).sort());
    const { rows } = await pool.query("SELECT short_id FROM orders.orders WHERE tenant_id = $1 ORDER BY short_id", [TENANT]);
    expect(rows.map((r) => r.short_id)).toEqual(["GROUP-1", "GROUP-2", "GROUP-4", "TAKEN-1", "TWICE"]);
    const { rows: strays } = await pool.query("SELECT count(*)::int AS n FROM orders.order_items WHERE order_id NOT IN (SELECT id FROM orders.orders)");
    expect(strays[0].n).toBe(0);
  });

  it("writes an order with an Idempotency-Key by the same statement, alone, its event handed over at its commit", async () => {
    const handed: OutboxRow[] = [];
    const stopListening = onOutboxCommitted(pool, (rows) => handed.push(...(rows ?? [])));
    const before = orderStatements;
    const input = { shortId: "KEYED-1", customerId, dueDate: null, currency: "EUR", orderItems: [{ productId: "prd_a", quantity: 1, price: "2.50" }] };
    const idempotency = { key: "key-keyed-1", requestHash: "hash-keyed-1" };
    // Written beside unkeyed orders of the same tick, it does not join their statement.
    const [keyed] = await Promise.all([createOrder(deps, TENANT, input, idempotency), order("UNKEYED-1"), order("UNKEYED-2")]);
    const replay = await createOrder(deps, TENANT, input, idempotency);
    stopListening();
    // The two unkeyed orders shared one statement on the pool; the keyed one ran on its own
    // transaction's connection (which the count of the pool's statements does not see).
    expect(orderStatements - before).toBe(1);
    expect(keyed.replayed).toBe(false);
    expect(replay).toEqual({ value: keyed.value, replayed: true });
    expect(await outboxRowsOf(keyed.value.id)).toBe(1);
    expect(handed.filter((row) => (row.event as { orderId: string }).orderId === keyed.value.id)).toHaveLength(1);
  });

  it("answers each order of one statement in the order given", async () => {
    const row = (shortId: string, customer: string): OrderInsert => ({
      id: `ord_${shortId}`,
      tenantId: TENANT,
      shortId,
      customerId: customer,
      dueDate: "2026-12-01T00:00:00.000Z",
      currency: "JPY",
      total: "300",
      items: [
        { productId: "prd_x", quantity: 1, price: "100" },
        { productId: "prd_y", quantity: 2, price: "100" },
      ],
      records: [],
    });
    const outcomes = await insertOrders(pool, [
      row("DIRECT-1", customerId),
      row("DIRECT-2", "cus_missing"),
      row("GROUP-1", customerId),
      row("DIRECT-3", customerId),
    ]);
    expect(outcomes[1]).toBe("unknown_customer");
    expect(outcomes[2]).toBe("duplicate_short_id");
    for (const i of [0, 3]) expect(outcomes[i]).toEqual({ createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), updatedAt: expect.any(String) });
    const stored = await getOrder(pool, TENANT, "ord_DIRECT-3");
    expect(stored.orderItems).toEqual([
      { productId: "prd_x", quantity: 1, price: "100" },
      { productId: "prd_y", quantity: 2, price: "100" },
    ]);
    expect(stored.dueDate).toBe("2026-12-01T00:00:00.000Z");
  });

  it("lists an order as written with it, and from its columns and order_items for orders written before", async () => {
    const { value: created } = await createOrder(deps, TENANT, {
      shortId: "LINES-1",
      customerId,
      dueDate: "2026-12-24T18:30:00.250Z",
      currency: "BHD",
      orderItems: [
        { productId: "prd_a", quantity: 1, price: "1.5" },
        { productId: "prd_b", quantity: 2, price: "0.125" },
      ],
    });
    const pageText = async () => (await listOrdersJson(pool, TENANT, { limit: 100 })).dataJson;
    const listed = async () => (JSON.parse(await pageText()) as { id: string; orderItems: unknown }[]).find((o) => o.id === created.id);
    const stored = async () =>
      (
        await pool.query<{ head: string | null; json: string | null }>("SELECT listing_head AS head, listing_json AS json FROM orders.orders WHERE id = $1", [
          created.id,
        ])
      ).rows[0];
    expect((await stored()).json).not.toBeNull();
    const fromRow = await listed();
    expect(fromRow).toEqual(created);
    expect(JSON.stringify(fromRow?.orderItems)).toBe('[{"productId":"prd_a","quantity":1,"price":"1.500"},{"productId":"prd_b","quantity":2,"price":"0.125"}]');
    const written = await pageText();
    // An order from between listing heads and whole listings (migrations 007 and 008): its head is
    // joined to its other columns on each read, into the same text as the trigger wrote.
    await pool.query("ALTER TABLE orders.orders DISABLE TRIGGER orders_listing_json");
    try {
      await pool.query("UPDATE orders.orders SET listing_json = NULL WHERE id = $1", [created.id]);
    } finally {
      await pool.query("ALTER TABLE orders.orders ENABLE TRIGGER orders_listing_json");
    }
    expect(await stored()).toMatchObject({ json: null, head: expect.any(String) });
    expect(await pageText()).toBe(written);
    // An order from before the listing head (the trigger renders nothing without it): its fields
    // are rendered from its columns, alike.
    await pool.query("UPDATE orders.orders SET listing_head = NULL WHERE id = $1", [created.id]);
    expect(await stored()).toEqual({ head: null, json: null });
    expect(await pageText()).toBe(written);
    // And from before items_json too: its lines come from order_items, the same JSON (spaced as
    // json_build_object writes it).
    await pool.query("UPDATE orders.orders SET items_json = NULL WHERE id = $1", [created.id]);
    expect(await listed()).toEqual(fromRow);
  });
});
