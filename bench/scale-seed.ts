// Seeds a Waybill database with history, server-side (INSERT … SELECT generate_series: no rows
// cross the wire), in chunks so that progress shows and no transaction grows unbounded. Ids are
// valid type-prefixed ids older than any the running system mints ("…_00" + a zero-padded
// number), so seeded rows sit behind fresh ones in every newest-first list.
import type pg from "pg";
import { listingHeadSql } from "../services/orders/order-listing.js";

const CHUNK = 250_000;
const ORDER_STATUSES = ["pending", "pending", "ready", "inProgress", "completed", "completed", "cancelled"];

const oldId = (prefix: string, n: string) => `'${prefix}_00' || lpad((${n})::text, 24, '0')`;

async function inChunks(total: number, label: string, insert: (from: number, to: number) => Promise<unknown>): Promise<void> {
  const started = performance.now();
  for (let from = 1; from <= total; from += CHUNK) {
    const to = Math.min(total, from + CHUNK - 1);
    await insert(from, to);
    process.stderr.write(
      `\r  seeding ${label}: ${to.toLocaleString("en")} of ${total.toLocaleString("en")} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  process.stderr.write("\n");
}

export async function seedOrders(db: pg.Client, tenantId: string, customerId: string, productId: string, count: number): Promise<void> {
  const statuses = `(ARRAY[${ORDER_STATUSES.map((s) => `'${s}'`).join(",")}])[1 + g % ${ORDER_STATUSES.length}]`;
  await inChunks(count, "orders", async (from, to) => {
    await db.query(
      `INSERT INTO orders.orders (id, tenant_id, short_id, customer_id, currency, status, total, created_at, updated_at, items_json, listing_head)
       SELECT id, $1, short_id, $2, 'EUR', ${statuses}, 39.98, created_at, created_at, $5::json,
              ${listingHeadSql({ id: "id", shortId: "short_id", currency: "'EUR'::text", orderItems: "$5::text", total: "'39.98'::text", createdAt: "created_at" })}
       FROM generate_series($3::int, $4::int) AS g,
            LATERAL (SELECT ${oldId("ord", "g")} AS id, 'SEED-' || g AS short_id, now() - interval '1 day' AS created_at) seeded`,
      // The one line below, and the listing head, as order creation writes them with the order.
      [tenantId, customerId, from, to, JSON.stringify([{ productId, quantity: 2, price: "19.99" }])],
    );
    await db.query(
      `INSERT INTO orders.order_items (order_id, line_no, tenant_id, product_id, quantity, price)
       SELECT ${oldId("ord", "g")}, 1, $1, $2, 2, 19.99 FROM generate_series($3::int, $4::int) AS g`,
      [tenantId, productId, from, to],
    );
  });
  await settle(db, "orders.orders", "orders.order_items");
}

export async function seedExecutions(db: pg.Client, tenantId: string, hookId: string, url: string, count: number): Promise<void> {
  await inChunks(count, "executions", (from, to) =>
    db.query(
      `INSERT INTO dispatcher.executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, url, requested_at, duration_ms, outcome, status_code, response_body, response_headers)
       SELECT ${oldId("exe", "g")}, $1, $2, 'dlv_' || g, ${oldId("evt", "g")}, 'order.created', 'event', 1, $3,
              now() - interval '1 day', 12, CASE WHEN g % 20 = 0 THEN 'failed' ELSE 'succeeded' END,
              CASE WHEN g % 20 = 0 THEN 500 ELSE 204 END, NULL, '{"content-type":"text/plain"}'::jsonb
       FROM generate_series($4::int, $5::int) AS g`,
      [tenantId, hookId, url, from, to],
    ),
  );
  await settle(db, "dispatcher.executions");
}

export async function seedEvents(db: pg.Client, tenantId: string, count: number): Promise<void> {
  await inChunks(count, "event log", (from, to) =>
    db.query(
      `INSERT INTO dispatcher.event_log (id, tenant_id, kind, time, transaction_id, event)
       SELECT ${oldId("evt", "g")}, $1, 'order.created', now() - interval '1 day', ${oldId("txn", "g")},
              jsonb_build_object('id', ${oldId("evt", "g")}, 'kind', 'order.created', 'time', now() - interval '1 day',
                                 'transactionId', ${oldId("txn", "g")}, 'orderId', ${oldId("ord", "g")}, 'total', '39.98')
       FROM generate_series($2::int, $3::int) AS g`,
      [tenantId, from, to],
    ),
  );
  await settle(db, "dispatcher.event_log");
}

/**
 * VACUUM (ANALYZE) after the bulk load, as an operator would after one: otherwise autovacuum
 * takes these millions of new rows on (and the first reads set their hint bits) while the
 * measurements run, and the first endpoint measured pays for it.
 */
async function settle(db: pg.Client, ...tables: string[]): Promise<void> {
  for (const table of tables) await db.query(`VACUUM (ANALYZE) ${table}`);
}
