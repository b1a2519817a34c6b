// Execution records: one per delivery attempt, written together with the hook's counters
// (successCount / errorCount count attempts, lastRunAt is the last attempt's time).
import type { Queryable } from "../platform/db.js";
import { hasPrefix, newId } from "../platform/ids.js";
import { NotFoundError } from "../platform/errors.js";
import { decodeCursor, toPage, type Page } from "../platform/pagination.js";
import { hookNotFound, isHookId } from "./hooks.js";
import type { SendResult } from "./sender.js";

export type Trigger = "event" | "retry" | "test" | "manual";

export interface Execution {
  id: string;
  hookId: string;
  eventId: string;
  eventKind: string;
  trigger: Trigger;
  attempt: number;
  url: string;
  requestedAt: string;
  durationMs: number;
  outcome: "succeeded" | "failed";
  statusCode: number | null;
  responseBody: string | null;
  responseHeaders: Record<string, string>;
  error: string | null;
  nextAttemptAt: string | null;
}

interface ExecutionRow {
  id: string;
  hook_id: string;
  event_id: string;
  event_kind: string;
  trigger: Trigger;
  attempt: number;
  url: string;
  requested_at: Date;
  duration_ms: number;
  outcome: "succeeded" | "failed";
  status_code: number | null;
  response_body: string | null;
  response_headers: Record<string, string>;
  error: string | null;
  next_attempt_at: Date | null;
}

function executionFromRow(row: ExecutionRow): Execution {
  return {
    id: row.id,
    hookId: row.hook_id,
    eventId: row.event_id,
    eventKind: row.event_kind,
    trigger: row.trigger,
    attempt: row.attempt,
    url: row.url,
    requestedAt: row.requested_at.toISOString(),
    durationMs: row.duration_ms,
    outcome: row.outcome,
    statusCode: row.status_code,
    responseBody: row.response_body,
    responseHeaders: row.response_headers,
    error: row.error,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
  };
}

export interface NewExecution {
  tenantId: string;
  hookId: string;
  deliveryId: string;
  eventId: string;
  eventKind: string;
  trigger: Trigger;
  attempt: number;
  url: string;
  result: SendResult;
  nextAttemptAt: Date | null;
}

/**
 * Records an attempt and counts it on its hook, in one statement. Returns null when the hook
 * no longer exists (deleted while the attempt ran): nothing is recorded then.
 */
export async function recordExecution(db: Queryable, e: NewExecution): Promise<Execution | null> {
  const { result } = e;
  const { rows } = await db.query<ExecutionRow>(
    `WITH counted AS (
       UPDATE hooks SET success_count = success_count + $15, error_count = error_count + (1 - $15),
              last_run_at = GREATEST(COALESCE(last_run_at, $9), $9)
        WHERE tenant_id = $2 AND id = $3 RETURNING id
     )
     INSERT INTO executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, requested_at, url,
                             duration_ms, outcome, status_code, response_body, response_headers, error, next_attempt_at)
     SELECT $1, $2, counted.id, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $15 = 1 THEN 'succeeded' ELSE 'failed' END,
            $12, $13, $14, $16, $17
       FROM counted
     RETURNING *`,
    [
      newId("exe"),
      e.tenantId,
      e.hookId,
      e.deliveryId,
      e.eventId,
      e.eventKind,
      e.trigger,
      e.attempt,
      result.requestedAt,
      e.url,
      result.durationMs,
      result.statusCode,
      result.responseBody,
      JSON.stringify(result.responseHeaders),
      result.ok ? 1 : 0,
      result.error,
      e.nextAttemptAt,
    ],
  );
  return rows[0] ? executionFromRow(rows[0]) : null;
}

export function isExecutionId(id: string): boolean {
  return hasPrefix(id, "exe");
}

export function executionNotFound(id: string): NotFoundError {
  return new NotFoundError("execution_not_found", `No execution ${JSON.stringify(id)} of this hook.`);
}

/** A hook's executions, newest first; 404 when the hook is not the tenant's. */
export async function listExecutions(db: Queryable, tenantId: string, hookId: string, limit: number, cursor?: string | null): Promise<Page<Execution>> {
  const before = decodeCursor(cursor);
  if (!isHookId(hookId)) throw hookNotFound(hookId);
  const { rowCount } = await db.query(`SELECT 1 FROM hooks WHERE tenant_id = $1 AND id = $2`, [tenantId, hookId]);
  if (rowCount === 0) throw hookNotFound(hookId);
  const { rows } = await db.query<ExecutionRow>(
    `SELECT * FROM executions WHERE tenant_id = $1 AND hook_id = $2 AND ($3::text IS NULL OR id < $3) ORDER BY id DESC LIMIT $4`,
    [tenantId, hookId, before, limit + 1],
  );
  const page = toPage(rows, limit);
  return { data: page.data.map(executionFromRow), nextCursor: page.nextCursor };
}

export async function getExecution(db: Queryable, tenantId: string, hookId: string, executionId: string): Promise<Execution> {
  if (!isHookId(hookId)) throw hookNotFound(hookId);
  if (!isExecutionId(executionId)) throw executionNotFound(executionId);
  const { rows } = await db.query<ExecutionRow>(`SELECT * FROM executions WHERE tenant_id = $1 AND hook_id = $2 AND id = $3`, [tenantId, hookId, executionId]);
  if (rows.length === 0) throw executionNotFound(executionId);
  return executionFromRow(rows[0]);
}
