// Retention of the dispatcher's history: the tenant event log (RETENTION_EVENTS, 30 days by
// default, as Svix and Stripe keep events), execution records (RETENTION_EXECUTIONS, 90 days) and
// test events (RETENTION_TEST_EVENTS, 7 days); parked deliveries as long as the event log (their
// hook has been paused by then, WEBHOOK_DISABLE_AFTER, and a resume drops the fan-outs of events
// from before it: left alone, a hook that stays paused would keep them for ever). Old rows go in
// batches of RETENTION_BATCH with a pause between, so no statement holds locks or I/O for long;
// several replicas doing it at once only share the work. `recover` and `retry` cannot reach further back than what is kept.
import { Counter, type Registry } from "prom-client";
import type { Pool } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";

export const DEFAULT_RETENTION_EVENTS_MS = 30 * 86_400_000;
export const DEFAULT_RETENTION_EXECUTIONS_MS = 90 * 86_400_000;
export const DEFAULT_RETENTION_TEST_EVENTS_MS = 7 * 86_400_000;
export const RETENTION_BATCH = 1_000;
export const RETENTION_PAUSE_MS = 50;
export const RETENTION_INTERVAL_MS = 60 * 60_000;
export const RETENTION_FIRST_RUN_MS = 90_000;

export interface RetentionPeriods {
  eventsMs: number;
  executionsMs: number;
  testEventsMs: number;
}

const TABLES = [
  { table: "event_log", column: "time", period: "eventsMs" },
  { table: "executions", column: "requested_at", period: "executionsMs" },
  { table: "test_events", column: "created_at", period: "testEventsMs" },
  { table: "parked_deliveries", column: "parked_at", period: "eventsMs" },
] as const;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Deletes what is older than its period; answers the rows deleted per table. */
export async function pruneHistory(
  pool: Pool,
  periods: RetentionPeriods,
  options: { batch?: number; pauseMs?: number; now?: Date } = {},
): Promise<Record<string, number>> {
  const batch = options.batch ?? RETENTION_BATCH;
  const now = options.now ?? new Date();
  const deleted: Record<string, number> = {};
  for (const { table, column, period } of TABLES) {
    const cutoff = new Date(now.getTime() - periods[period]);
    deleted[table] = 0;
    for (;;) {
      const { rowCount } = await pool.query(`DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${column} < $1 LIMIT $2))`, [
        cutoff,
        batch,
      ]);
      deleted[table] += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
      await pause(options.pauseMs ?? RETENTION_PAUSE_MS);
    }
  }
  return deleted;
}

export function startRetention(deps: { pool: Pool; logger: Logger; registry: Registry; periods: RetentionPeriods }): () => Promise<void> {
  const counter = new Counter({
    name: "waybill_retention_deleted_total",
    help: "Rows deleted because they outlived their retention period",
    labelNames: ["table"],
    registers: [deps.registry],
  });
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return;
    running = pruneHistory(deps.pool, deps.periods)
      .then((deleted) => {
        for (const [table, n] of Object.entries(deleted)) counter.inc({ table }, n);
        if (Object.values(deleted).some((n) => n > 0)) deps.logger.info({ deleted }, "retention deleted old history");
      })
      .catch((error) => deps.logger.warn({ err: (error as Error).message }, "retention failed; will try again"))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, RETENTION_FIRST_RUN_MS);
  const every = setInterval(run, RETENTION_INTERVAL_MS);
  first.unref();
  every.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(every);
    await running;
  };
}
