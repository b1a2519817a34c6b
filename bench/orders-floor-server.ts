// The orders benchmark's same-work floor: what one Node process does when it takes an order the
// way a careful hand-written service would, with none of Waybill's structure. Koa validates the
// body with the same zod schema the edge uses; one transaction inserts the order, its lines and
// one outbox row (same tables, indexes and numeric types as the orders service) in one statement;
// 201 after commit. A relay in the same process publishes the outbox to JetStream with Nats-Msg-Id and
// deletes what it published. Prints its port on stdout, then serves until SIGTERM.
// Env: DATABASE_URL, NATS_URL, FLOOR_STREAM (stream name, created and deleted here).
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/transport-node";
import Koa from "koa";
import pg from "pg";
import { createOrderBody } from "../services/edge/schemas/orders.js";
import { newId } from "@waybill/platform/ids.js";

const RELAY_BATCH = 500;
const stream = process.env.FLOOR_STREAM ?? "FLOOR_ORDERS";
const subjectRoot = stream.toLowerCase();
const tenantId = "ten_floor";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await pool.query(`
  CREATE SCHEMA IF NOT EXISTS floor;
  CREATE TABLE IF NOT EXISTS floor.orders (
    id text PRIMARY KEY, tenant_id text NOT NULL, short_id text NOT NULL, customer_id text NOT NULL,
    due_date timestamptz, currency char(3) NOT NULL, status text NOT NULL, total numeric(19, 4) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, short_id));
  CREATE INDEX IF NOT EXISTS floor_orders_status ON floor.orders (tenant_id, status, id DESC);
  CREATE INDEX IF NOT EXISTS floor_orders_customer ON floor.orders (tenant_id, customer_id, id DESC);
  CREATE TABLE IF NOT EXISTS floor.order_items (
    order_id text NOT NULL REFERENCES floor.orders(id) ON DELETE CASCADE, line_no integer NOT NULL,
    tenant_id text NOT NULL, product_id text NOT NULL, quantity integer NOT NULL, price numeric(19, 4) NOT NULL,
    PRIMARY KEY (order_id, line_no));
  CREATE TABLE IF NOT EXISTS floor.outbox (id text PRIMARY KEY, subject text NOT NULL, event jsonb NOT NULL, headers jsonb NOT NULL);
`);

const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
const jsm = await jetstreamManager(nc);
await jsm.streams.add({ name: stream, subjects: [`${subjectRoot}.>`] });
const js = jetstream(nc);

// The relay: one drain at a time; a commit during a drain asks for another.
let draining = false;
let again = false;
async function drain(): Promise<void> {
  if (draining) {
    again = true;
    return;
  }
  draining = true;
  try {
    do {
      again = false;
      for (;;) {
        const { rows } = await pool.query<{ id: string; subject: string; event: unknown; headers: Record<string, string> }>(
          "SELECT id, subject, event, headers FROM floor.outbox ORDER BY id LIMIT $1",
          [RELAY_BATCH],
        );
        if (rows.length === 0) break;
        await Promise.all(
          rows.map((row) => {
            const h = natsHeaders();
            for (const [k, v] of Object.entries(row.headers)) h.set(k, v);
            return js.publish(row.subject, JSON.stringify(row.event), { msgID: row.id, headers: h });
          }),
        );
        await pool.query("DELETE FROM floor.outbox WHERE id = ANY($1)", [rows.map((r) => r.id)]);
        if (rows.length < RELAY_BATCH) break;
      }
    } while (again);
  } finally {
    draining = false;
  }
}

const app = new Koa();
app.use(async (ctx) => {
  let raw = "";
  for await (const chunk of ctx.req) raw += chunk;
  const parsed = createOrderBody.safeParse(JSON.parse(raw));
  if (!parsed.success) {
    ctx.status = 422;
    ctx.body = { code: "validation_failed", errors: parsed.error.issues };
    return;
  }
  const body = parsed.data;
  const id = newId("ord");
  const eventId = newId("evt");
  const transactionId = newId("txn");
  // One statement, so one round trip and one implicit transaction: order, lines and outbox row
  // commit together or not at all.
  const lines = body.orderItems.map((l, i) => ({ line_no: i + 1, product_id: l.productId, quantity: l.quantity, price: String(l.price) }));
  const time = new Date().toISOString();
  const { rows } = await pool.query<{ total: string; created_at: Date; updated_at: Date }>(
    `WITH lines AS (
       SELECT * FROM jsonb_to_recordset($7::jsonb) AS l(line_no integer, product_id text, quantity integer, price numeric)
     ), o AS (
       INSERT INTO floor.orders (id, tenant_id, short_id, customer_id, due_date, currency, status, total)
       SELECT $1, $2, $3, $4, $5, $6, 'pending', sum(quantity * price) FROM lines
       RETURNING id, total, created_at, updated_at
     ), i AS (
       INSERT INTO floor.order_items (order_id, line_no, tenant_id, product_id, quantity, price)
       SELECT o.id, line_no, $2, product_id, quantity, price FROM lines, o
     ), x AS (
       INSERT INTO floor.outbox (id, subject, event, headers)
       SELECT $8, $9, $10::jsonb || jsonb_build_object('total', o.total::text, 'createdAt', o.created_at, 'updatedAt', o.updated_at), $11 FROM o
     )
     SELECT total::text, created_at, updated_at FROM o`,
    [
      id,
      tenantId,
      body.shortId,
      body.customerId,
      body.dueDate ?? null,
      body.currency,
      JSON.stringify(lines),
      eventId,
      `${subjectRoot}.${tenantId}.order.created`,
      JSON.stringify({
        id: eventId,
        kind: "order.created",
        time,
        transactionId,
        orderId: id,
        shortId: body.shortId,
        customerId: body.customerId,
        currency: body.currency,
        status: "pending",
        orderItems: body.orderItems,
      }),
      { transactionId, tenantId },
    ],
  );
  const order = {
    id,
    shortId: body.shortId,
    customerId: body.customerId,
    dueDate: body.dueDate ?? null,
    currency: body.currency,
    status: "pending",
    orderItems: body.orderItems,
    total: rows[0].total,
    createdAt: rows[0].created_at,
    updatedAt: rows[0].updated_at,
  };
  void drain();
  ctx.status = 201;
  ctx.body = order;
});

const server = app.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
process.on("SIGTERM", () => {
  server.close(async () => {
    await drain();
    await jsm.streams.delete(stream).catch(() => {});
    await nc.close();
    await pool.end();
    process.exit(0);
  });
});
