// The event log a context yardstick of bench:webhooks keeps (webhooks-floor-worker.ts with
// FLOOR_EVENT_LOG=1): the dispatcher's event_log columns and indexes (migrations 001, 008, 009),
// in a schema of its own. Kept in step with those migrations, as floor-executions.ts is with the
// execution table's.
import type pg from "pg";

export async function createEventLogTable(db: pg.Pool, schema: string): Promise<void> {
  const lookups = ["orderId", "shipmentId", "productId", "customerId", "deviceId", "hookId"];
  await db.query(`
    CREATE SCHEMA IF NOT EXISTS ${schema};
    CREATE TABLE IF NOT EXISTS ${schema}.event_log (
      id text PRIMARY KEY, tenant_id text NOT NULL, kind text NOT NULL, time timestamptz NOT NULL,
      transaction_id text NOT NULL, event jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now(), stream_seq bigint);
    CREATE INDEX IF NOT EXISTS event_log_tenant ON ${schema}.event_log (tenant_id, id DESC);
    CREATE INDEX IF NOT EXISTS event_log_tenant_kind ON ${schema}.event_log (tenant_id, kind, id DESC);
    CREATE INDEX IF NOT EXISTS event_log_transaction ON ${schema}.event_log (tenant_id, transaction_id, id DESC);
    ${lookups
      .map(
        (key) => `CREATE INDEX IF NOT EXISTS event_log_${key.replace(/Id$/, "").toLowerCase()} ON ${schema}.event_log (tenant_id, (event ->> '${key}'), id DESC)
          WHERE (event ->> '${key}') IS NOT NULL;`,
      )
      .join("\n")}
  `);
}

export const INSERT_EVENTS = (schema: string) => `
  INSERT INTO ${schema}.event_log (id, tenant_id, kind, time, transaction_id, stream_seq, event)
  SELECT id, tenant_id, kind, time, transaction_id, stream_seq, event
    FROM jsonb_to_recordset($1::jsonb) AS r(id text, tenant_id text, kind text, time timestamptz, transaction_id text, stream_seq bigint, event jsonb)
  ON CONFLICT (id) DO NOTHING`;
