// Writing new orders: each order with its lines and its outbox rows, several orders in one
// statement. One statement is atomic without BEGIN/COMMIT, so orders that arrive while the
// database is busy share one round trip and one commit (group commit, see batcher.ts) instead of
// paying for their own; under light load an order goes out alone at once. It is the only way
// orders are written: a request with an Idempotency-Key runs it as a batch of one in its own
// transaction (why: orders.ts, createOrder).
import { createBatcher } from "@waybill/platform/batcher.js";
import { isoTimestampSql, type Pool, type Queryable } from "@waybill/platform/db.js";
import { applyOutboxTimes, outboxInsertFromSql, outboxRecordRows, outboxRowsWritten, type OutboxRecord } from "@waybill/platform/outbox.js";
import { preparedStatement } from "@waybill/platform/prepared.js";
import { listingHeadSql } from "./order-listing.js";

/** Orders written by one statement at most. */
export const ORDER_INSERT_MAX_BATCH = 64;

/** A validated order ready to store, with the outbox records of its events. */
export interface OrderInsert {
  id: string;
  tenantId: string;
  shortId: string;
  customerId: string;
  /** ISO 8601 UTC, or null. */
  dueDate: string | null;
  currency: string;
  total: string;
  /** Its lines, prices formatted at the currency's scale as the API shows them. */
  items: readonly { productId: string; quantity: number; price: string }[];
  records: readonly OutboxRecord[];
}

/** What storing one order came to: its timestamps, or why nothing was stored. */
export type OrderInsertOutcome = { createdAt: string; updatedAt: string } | "unknown_customer" | "duplicate_short_id";

// An order whose customer is not in its tenant, or whose shortId the tenant already has, is left
// out (ON CONFLICT DO NOTHING also covers two orders of one statement with the same shortId);
// its lines and events with it. The others are stored.
const INSERT_ORDERS = preparedStatement(
  "orders_insert_orders",
  `WITH input AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb)
       AS o(id text, tenant_id text, short_id text, customer_id text, due_date timestamptz, currency text, total text,
            items_json text, events jsonb)),
   known AS (
     SELECT i.id FROM input i WHERE EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = i.tenant_id AND c.id = i.customer_id)),
   new_orders AS (
     INSERT INTO orders (id, tenant_id, short_id, customer_id, due_date, currency, status, total, items_json, listing_head)
     SELECT i.id, i.tenant_id, i.short_id, i.customer_id, i.due_date, i.currency, 'pending', i.total::numeric, i.items_json::json,
            ${listingHeadSql({ id: "i.id", shortId: "i.short_id", currency: "i.currency", orderItems: "i.items_json", total: "i.total", createdAt: "now()" })}
       FROM input i JOIN known k ON k.id = i.id
     ON CONFLICT DO NOTHING
     RETURNING id, created_at, updated_at),
   new_items AS (
     INSERT INTO order_items (order_id, line_no, tenant_id, product_id, quantity, price)
     SELECT i.id, l.line_no, i.tenant_id, l.product_id, l.quantity, l.price
       FROM new_orders n JOIN input i ON i.id = n.id
      CROSS JOIN LATERAL ROWS FROM (jsonb_to_recordset(i.items_json::jsonb) AS ("productId" text, quantity integer, price numeric))
            WITH ORDINALITY AS l(product_id, quantity, price, line_no)),
   new_events AS (${outboxInsertFromSql(`SELECT e.id, e.tenant_id, e.kind, e.subject, e.event, e.headers, e.timed
       FROM new_orders n JOIN input i ON i.id = n.id
      CROSS JOIN LATERAL jsonb_to_recordset(i.events) AS e(id text, tenant_id text, kind text, subject text, event jsonb, headers jsonb, timed boolean)`)})
   SELECT i.id, k.id IS NOT NULL AS customer_found,
          ${isoTimestampSql("n.created_at")} AS created_at, ${isoTimestampSql("n.updated_at")} AS updated_at,
          (SELECT json_agg(json_build_object('id', ne.id, 'time', ne.time)) FROM new_events ne
            WHERE ne.id IN (SELECT e->>'id' FROM jsonb_array_elements(i.events) e)) AS event_times
     FROM input i LEFT JOIN known k ON k.id = i.id LEFT JOIN new_orders n ON n.id = i.id`,
);

/**
 * Stores orders in one statement on `db` (the pool, or a connection in withTransaction); one
 * outcome per order, in order. The stored orders' events go to the outbox relay on their commit.
 */
export async function insertOrders(db: Queryable, orders: readonly OrderInsert[]): Promise<OrderInsertOutcome[]> {
  const input = orders.map((o) => ({
    id: o.id,
    tenant_id: o.tenantId,
    short_id: o.shortId,
    customer_id: o.customerId,
    due_date: o.dueDate,
    currency: o.currency,
    total: o.total,
    // The lines once, as the API shows them: kept as text in the order's row (a jsonb value would
    // come back with its keys reordered), and read from it into order_items, numbered in order.
    items_json: JSON.stringify(o.items.map((item) => ({ productId: item.productId, quantity: item.quantity, price: item.price }))),
    events: outboxRecordRows(o.records),
  }));
  const { rows } = await db.query<{
    id: string;
    customer_found: boolean;
    created_at: string | null;
    updated_at: string | null;
    event_times: { id: string; time: string | null }[] | null;
  }>(INSERT_ORDERS([JSON.stringify(input)]));
  const byId = new Map(rows.map((row) => [row.id, row]));
  const outcomes = orders.map((order): OrderInsertOutcome => {
    const row = byId.get(order.id);
    if (!row) throw new Error(`the insert of orders answered nothing for ${order.id}`);
    if (!row.customer_found) return "unknown_customer";
    if (row.created_at === null || row.updated_at === null) return "duplicate_short_id";
    applyOutboxTimes(order.records, row.event_times ?? []);
    return { createdAt: row.created_at, updatedAt: row.updated_at };
  });
  const written = orders.flatMap((order, i) => (typeof outcomes[i] === "object" ? order.records : []));
  if (written.length > 0) outboxRowsWritten(db, written);
  return outcomes;
}

export interface OrderWriter {
  /** Stores one order, committed when it resolves, its events handed to the outbox relay. */
  insert(order: OrderInsert): Promise<OrderInsertOutcome>;
}

export function createOrderWriter(pool: Pool): OrderWriter {
  const insert = createBatcher<OrderInsert, OrderInsertOutcome>((orders) => insertOrders(pool, orders), { maxBatch: ORDER_INSERT_MAX_BATCH });
  return { insert };
}
