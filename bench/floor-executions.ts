// The execution table the webhooks floor and the BullMQ peer write: the dispatcher's columns and
// indexes (no foreign key to a hooks table neither of them has), in a schema of their own. Kept
// in step with the dispatcher's migrations: executions_event (009) was missing here until 013.
import { createHmac } from "node:crypto";
import type pg from "pg";

export async function createExecutionTable(db: pg.Pool, schema: string): Promise<void> {
  await db.query(`
    CREATE SCHEMA IF NOT EXISTS ${schema};
    CREATE TABLE IF NOT EXISTS ${schema}.executions (
      id text PRIMARY KEY, tenant_id text NOT NULL, hook_id text NOT NULL, delivery_id text NOT NULL,
      event_id text NOT NULL, event_kind text NOT NULL, trigger text NOT NULL, attempt integer NOT NULL,
      url text NOT NULL, requested_at timestamptz NOT NULL, duration_ms integer NOT NULL, outcome text NOT NULL,
      status_code integer, response_body text, response_headers jsonb NOT NULL DEFAULT '{}'::jsonb,
      error text, next_attempt_at timestamptz);
    CREATE INDEX IF NOT EXISTS executions_hook ON ${schema}.executions (hook_id, id DESC);
    CREATE INDEX IF NOT EXISTS executions_delivery ON ${schema}.executions (delivery_id, attempt DESC);
    CREATE INDEX IF NOT EXISTS executions_event ON ${schema}.executions (tenant_id, event_id, id DESC);
  `);
}

export interface FloorHook {
  id: string;
  url: string;
  secret: string;
}

/** The delivery headers, computed by hand as a receiver's documentation describes them. */
export function signedHeaders(hook: FloorHook, body: string): Record<string, string> {
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac("sha256", hook.secret).update(`${t}.${body}`).digest("hex");
  return { "content-type": "application/json", "x-service-webhook-id": hook.id, "x-service-signature": `t=${t},v1=${v1}` };
}

export interface ExecutionRow {
  id: string;
  hookId: string;
  eventId: string;
  url: string;
  requestedAt: string;
  durationMs: number;
  outcome: "succeeded" | "failed";
  statusCode: number | null;
  error: string | null;
}

export const INSERT_EXECUTIONS = (schema: string) => `
  INSERT INTO ${schema}.executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, url, requested_at, duration_ms, outcome, status_code, error)
  SELECT id, 'ten_bench', hook_id, event_id || ':' || hook_id, event_id, 'order.created', 'event', 1, url, requested_at, duration_ms, outcome, status_code, error
  FROM jsonb_to_recordset($1::jsonb) AS r(id text, hook_id text, event_id text, url text, requested_at timestamptz, duration_ms integer, outcome text, status_code integer, error text)`;

export function executionRecord(row: ExecutionRow): Record<string, unknown> {
  return {
    id: row.id,
    hook_id: row.hookId,
    event_id: row.eventId,
    url: row.url,
    requested_at: row.requestedAt,
    duration_ms: row.durationMs,
    outcome: row.outcome,
    status_code: row.statusCode,
    error: row.error,
  };
}
