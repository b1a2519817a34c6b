// Execution records: one per delivery attempt, written together with the hook's counters
// (successCount / errorCount count attempts, lastRunAt is the last attempt's time).
import { preparedStatement } from "@waybill/platform/prepared.js";
import { isoTimestampSql, type Queryable } from "@waybill/platform/db.js";
import { hasPrefix, newId } from "@waybill/platform/ids.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError } from "@waybill/platform/errors.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import { eventNotFound } from "./event-log.js";
import { hookNotFound, isHookId } from "./hooks.js";
import type { SendResult } from "./sender.js";

export type Trigger = "event" | "retry" | "test" | "manual" | "recover";

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
  /** ISO 8601 UTC text (isoTimestampSql), as the API shows it. */
  requested_at: string;
  duration_ms: number;
  outcome: "succeeded" | "failed";
  status_code: number | null;
  response_body: string | null;
  response_headers: Record<string, string>;
  error: string | null;
  next_attempt_at: string | null;
}

/** The columns of an ExecutionRow, timestamps read as the API shows them. */
const EXECUTION_COLUMNS = `id, hook_id, event_id, event_kind, trigger, attempt, url, ${isoTimestampSql("requested_at")} AS requested_at, duration_ms,
  outcome, status_code, response_body, response_headers, error, ${isoTimestampSql("next_attempt_at")} AS next_attempt_at`;

function executionFromRow(row: ExecutionRow): Execution {
  return {
    id: row.id,
    hookId: row.hook_id,
    eventId: row.event_id,
    eventKind: row.event_kind,
    trigger: row.trigger,
    attempt: row.attempt,
    url: row.url,
    requestedAt: row.requested_at,
    durationMs: row.duration_ms,
    outcome: row.outcome,
    statusCode: row.status_code,
    responseBody: row.response_body,
    responseHeaders: row.response_headers,
    error: row.error,
    nextAttemptAt: row.next_attempt_at,
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

// Hook rows are locked in id order, so batches counting on the same hooks never deadlock.
// The rows come as `json`, not `jsonb`: PostgreSQL reads them once, field by field, instead of
// first building each row as a jsonb object (its keys sorted) to take it apart again; parsing the
// argument was a sixth of the statement's cost (`perf record` of its backend under bench:webhooks),
// and `npm run bench:record-cost`, in pairs, gives 2–5 µs less of its CPU per row (batches of 15
// and 20; the bench itself moves ±10 µs on a busy machine). Each hook's totals come summed
// ($2, `hookTotals`) rather than grouped from the rows by the statement: without the aggregate
// and its join the statement cost about 4 µs less per row, of 36–56 (bench:record-cost, batches
// of 15: lower in 10 of 12 pairs).
export const RECORD_EXECUTIONS_SQL = `WITH totals AS (
       SELECT * FROM json_to_recordset($2::json) AS t(
         tenant_id text, hook_id text, ok int, failed int, last_run_at timestamptz, first_failed_at timestamptz)
     ), locked AS (
       SELECT h.id FROM hooks h JOIN totals t ON t.tenant_id = h.tenant_id AND t.hook_id = h.id ORDER BY h.id FOR NO KEY UPDATE OF h
     ), counted AS (
       UPDATE hooks h SET success_count = h.success_count + t.ok, error_count = h.error_count + t.failed,
              last_run_at = GREATEST(COALESCE(h.last_run_at, t.last_run_at), t.last_run_at),
              -- Since when every attempt has failed: a success ends the streak (auto-disable.ts).
              failing_since = CASE WHEN t.ok > 0 THEN NULL ELSE COALESCE(h.failing_since, t.first_failed_at) END
         FROM totals t, locked l
        WHERE l.id = h.id AND t.hook_id = h.id AND t.tenant_id = h.tenant_id
       RETURNING h.id
     ), recorded AS (
       INSERT INTO executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, requested_at, url,
                               duration_ms, outcome, status_code, response_body, response_headers, error, next_attempt_at)
       SELECT i.id, i.tenant_id, i.hook_id, i.delivery_id, i.event_id, i.event_kind, i.trigger, i.attempt, i.requested_at, i.url,
              i.duration_ms, CASE WHEN i.ok = 1 THEN 'succeeded' ELSE 'failed' END, i.status_code, i.response_body,
              COALESCE(i.response_headers, '{}'::jsonb), i.error, i.next_attempt_at
         FROM json_to_recordset($1::json) AS i(
           id text, tenant_id text, hook_id text, delivery_id text, event_id text, event_kind text, trigger text, attempt int,
           requested_at timestamptz, url text, duration_ms int, ok int, status_code int, response_body text, response_headers jsonb,
           error text, next_attempt_at timestamptz)
        WHERE i.hook_id IN (SELECT id FROM counted)
     )
     SELECT id FROM counted`;
const RECORD_EXECUTIONS = preparedStatement("dispatcher_record_executions", RECORD_EXECUTIONS_SQL);

/** Attempts as the rows of RECORD_EXECUTIONS's json parameter, each with a new execution id. */
export function executionRows(attempts: NewExecution[]) {
  return attempts.map((e) => ({
    id: newId("exe"),
    tenant_id: e.tenantId,
    hook_id: e.hookId,
    delivery_id: e.deliveryId,
    event_id: e.eventId,
    event_kind: e.eventKind,
    trigger: e.trigger,
    attempt: e.attempt,
    requested_at: e.result.requestedAt.toISOString(),
    url: e.url,
    duration_ms: e.result.durationMs,
    ok: e.result.ok ? 1 : 0,
    status_code: e.result.statusCode,
    response_body: e.result.responseBody,
    response_headers: e.result.responseHeaders,
    error: e.result.error,
    next_attempt_at: e.nextAttemptAt?.toISOString() ?? null,
  }));
}

/** One hook's share of a batch of attempts, as RECORD_EXECUTIONS's second parameter counts it. */
interface HookTotals {
  tenant_id: string;
  hook_id: string;
  ok: number;
  failed: number;
  last_run_at: string;
  first_failed_at: string | null;
}

/**
 * The attempts of a batch summed per hook: successes, failures, the last attempt's time and the
 * first failure's. Times compare as text: each is `Date#toISOString`, one fixed-width UTC form.
 */
function hookTotals(rows: ReturnType<typeof executionRows>): HookTotals[] {
  const byHook = new Map<string, HookTotals>();
  for (const row of rows) {
    const key = `${row.tenant_id}\n${row.hook_id}`;
    let totals = byHook.get(key);
    if (totals === undefined) {
      totals = { tenant_id: row.tenant_id, hook_id: row.hook_id, ok: 0, failed: 0, last_run_at: row.requested_at, first_failed_at: null };
      byHook.set(key, totals);
    }
    if (row.ok === 1) totals.ok += 1;
    else {
      totals.failed += 1;
      if (totals.first_failed_at === null || row.requested_at < totals.first_failed_at) totals.first_failed_at = row.requested_at;
    }
    if (row.requested_at > totals.last_run_at) totals.last_run_at = row.requested_at;
  }
  return [...byHook.values()];
}

/**
 * Records attempts and counts them on their hooks, all in one statement (the deliverer batches
 * concurrent attempts into one call). Answers, per attempt in order, its record, or null when
 * its hook no longer exists (deleted while the attempt ran): nothing is recorded for it then.
 * The statement answers the hooks it counted on (an attempt is recorded exactly when its hook
 * was), not a row per attempt.
 */
export async function recordExecutions(db: Queryable, attempts: NewExecution[]): Promise<(Execution | null)[]> {
  const input = executionRows(attempts);
  const { rows } = await db.query<{ id: string }>(RECORD_EXECUTIONS([JSON.stringify(input), JSON.stringify(hookTotals(input))]));
  const counted = new Set(rows.map((row) => row.id));
  // The records are answered from what was written, not read back: returning every column (two
  // timestamps formatted, the headers' jsonb printed and parsed again) cost PostgreSQL and the
  // dispatcher more per attempt than the insert, for an answer only test deliveries show.
  return input.map((row, i) => (counted.has(row.hook_id) ? executionFromInput(row, attempts[i]) : null));
}

function executionFromInput(row: { id: string; requested_at: string; next_attempt_at: string | null }, attempt: NewExecution): Execution {
  const { result } = attempt;
  return {
    id: row.id,
    hookId: attempt.hookId,
    eventId: attempt.eventId,
    eventKind: attempt.eventKind,
    trigger: attempt.trigger,
    attempt: attempt.attempt,
    url: attempt.url,
    requestedAt: row.requested_at,
    durationMs: result.durationMs,
    outcome: result.ok ? "succeeded" : "failed",
    statusCode: result.statusCode,
    responseBody: result.responseBody,
    responseHeaders: result.responseHeaders,
    error: result.error,
    nextAttemptAt: row.next_attempt_at,
  };
}

export function isExecutionId(id: string): boolean {
  return hasPrefix(id, "exe");
}

export function executionNotFound(id: string): AppError {
  return appError("execution_not_found", `No execution ${JSON.stringify(id)} of this hook.`);
}

// The hook's existence and its page in one statement: no executions yet is one row of NULLs,
// no such hook of the tenant is no row.
const LIST_EXECUTIONS = preparedStatement(
  "dispatcher_list_executions",
  `SELECT e.* FROM (SELECT 1 FROM hooks WHERE tenant_id = $1 AND id = $2) h
     LEFT JOIN LATERAL (
       SELECT ${EXECUTION_COLUMNS} FROM executions
        WHERE tenant_id = $1 AND hook_id = $2 AND ($3::text IS NULL OR id < $3) ORDER BY id DESC LIMIT $4) e ON true`,
);
const GET_EXECUTION = preparedStatement(
  "dispatcher_get_execution",
  `SELECT ${EXECUTION_COLUMNS} FROM executions WHERE tenant_id = $1 AND hook_id = $2 AND id = $3`,
);

/** A hook's executions, newest first; 404 when the hook is not the tenant's. */
export async function listExecutions(db: Queryable, tenantId: string, hookId: string, limit: number, cursor?: string | null): Promise<Page<Execution>> {
  const before = decodeCursor(cursor);
  if (!isHookId(hookId)) throw hookNotFound(hookId);
  const { rows } = await db.query<ExecutionRow | { id: null }>(LIST_EXECUTIONS([tenantId, hookId, before, limit + 1]));
  if (rows.length === 0) throw hookNotFound(hookId);
  const page = toPage(
    rows.filter((row): row is ExecutionRow => row.id !== null),
    limit,
  );
  return { data: page.data.map(executionFromRow), nextCursor: page.nextCursor };
}

export async function getExecution(db: Queryable, tenantId: string, hookId: string, executionId: string): Promise<Execution> {
  if (!isHookId(hookId)) throw hookNotFound(hookId);
  if (!isExecutionId(executionId)) throw executionNotFound(executionId);
  const { rows } = await db.query<ExecutionRow>(GET_EXECUTION([tenantId, hookId, executionId]));
  if (rows.length === 0) throw executionNotFound(executionId);
  return executionFromRow(rows[0]);
}

// An event's deliveries: the attempts to every hook of the tenant, newest first. The event must be
// in the tenant's log (no row: 404); kept but never delivered is one row of NULLs.
const LIST_EVENT_EXECUTIONS = preparedStatement(
  "dispatcher_list_event_executions",
  `SELECT e.* FROM (SELECT 1 FROM event_log WHERE tenant_id = $1 AND id = $2) ev
     LEFT JOIN LATERAL (
       SELECT ${EXECUTION_COLUMNS} FROM executions
        WHERE tenant_id = $1 AND event_id = $2 AND ($3::text IS NULL OR id < $3) ORDER BY id DESC LIMIT $4) e ON true`,
);

/** The execution records of one event of the tenant's log, every hook's, newest first. */
export async function listEventExecutions(db: Queryable, tenantId: string, eventId: string, limit: number, cursor?: string | null): Promise<Page<Execution>> {
  const before = decodeCursor(cursor);
  if (!hasPrefix(eventId, "evt")) throw eventNotFound(eventId);
  const { rows } = await db.query<ExecutionRow | { id: null }>(LIST_EVENT_EXECUTIONS([tenantId, eventId, before, limit + 1]));
  if (rows.length === 0) throw eventNotFound(eventId);
  const page = toPage(
    rows.filter((row): row is ExecutionRow => row.id !== null),
    limit,
  );
  return { data: page.data.map(executionFromRow), nextCursor: page.nextCursor };
}
