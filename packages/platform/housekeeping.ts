// Housekeeping of the platform tables every service schema has. Inbox ids only have to outlive
// JetStream's redeliveries (seconds to minutes) and Idempotency-Key records their 24 h window;
// kept for ever they would grow without bound, so old rows are deleted in small batches (short
// locks, no long transaction). Several replicas doing it at once is harmless.
import { IDEMPOTENCY_WINDOW_HOURS } from "./idempotency.js";
import type { Logger } from "./logger.js";
import type { Pool } from "./db.js";

export const INBOX_RETENTION_HOURS = 7 * 24;
export const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;
/** The first run waits this long after start, so a starting fleet does not prune all at once. */
export const HOUSEKEEPING_FIRST_RUN_MS = 60_000;
export const HOUSEKEEPING_BATCH = 5_000;

export interface Pruned {
  inbox: number;
  idempotencyKeys: number;
}

/** Deletes inbox ids and Idempotency-Key records older than their retention; returns the counts. */
export async function pruneExpired(pool: Pool, batch = HOUSEKEEPING_BATCH): Promise<Pruned> {
  return {
    inbox: await deleteInBatches(pool, "inbox", "processed_at", INBOX_RETENTION_HOURS, batch),
    idempotencyKeys: await deleteInBatches(pool, "idempotency_keys", "created_at", IDEMPOTENCY_WINDOW_HOURS, batch),
  };
}

async function deleteInBatches(pool: Pool, table: "inbox" | "idempotency_keys", column: string, hours: number, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
         SELECT ctid FROM ${table} WHERE ${column} < now() - make_interval(hours => $1) LIMIT $2))`,
      [hours, batch],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return total;
  }
}

export interface Housekeeping {
  stop(): Promise<void>;
}

export function startHousekeeping(options: { pool: Pool; logger: Logger; intervalMs?: number; firstRunMs?: number }): Housekeeping {
  const { pool, logger } = options;
  let running: Promise<void> | undefined;
  const run = () => {
    running = pruneExpired(pool)
      .then((pruned) => {
        if (pruned.inbox + pruned.idempotencyKeys > 0) logger.info(pruned, "housekeeping deleted expired rows");
      })
      .catch((error) => logger.warn({ err: (error as Error).message }, "housekeeping failed; will try again"))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, options.firstRunMs ?? HOUSEKEEPING_FIRST_RUN_MS);
  const every = setInterval(() => {
    if (!running) run();
  }, options.intervalMs ?? HOUSEKEEPING_INTERVAL_MS);
  // Timers must not keep a stopping process alive.
  first.unref();
  every.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
