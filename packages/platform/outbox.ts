// The transactional outbox. Events (see @waybill/contracts/events/outbox-events.ts) and messages are written in the caller's SQL transaction; the
// relay publishes pending rows to JetStream with Nats-Msg-Id = event id and then deletes them
// (JetStream and the dispatcher's event log keep the history; a kept row would only grow the
// table and cost an index update per event). A crash between publish and delete re-publishes
// the same id, which JetStream deduplicates.
// The relay wakes on commits of its own process (no NOTIFY: a notifying transaction holds a
// global lock through its commit flush, which serialises every writer) and polls for the rest.
import { currentContext, TRACEPARENT_HEADER } from "./context.js";
import type { Logger } from "./logger.js";
import { headers, publishDurable, TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Bus, type Topology } from "./nats.js";
import { markOutboxWritten, onOutboxCommitted } from "./outbox-signal.js";
import type { Pool, PoolClient, Queryable } from "./db.js";

export const OUTBOX_BATCH_SIZE = 200;
export const OUTBOX_POLL_INTERVAL_MS = 500;
export const OUTBOX_RETRY_DELAY_MS = 1_000;
/**
 * After a drain that published something, commits that keep arriving wait this long for company
 * before the next drain: a drain per commit (a transaction of four statements for one row) cost
 * the database more than the commits themselves. A lone commit is still published at once.
 */
export const OUTBOX_LINGER_MS = 3;
/**
 * The relay vacuums the outbox after deleting this many rows (at most every
 * OUTBOX_VACUUM_INTERVAL_MS). Each drain reads the outbox's index from its oldest end, where the
 * deleted rows' dead entries pile up until autovacuum (once a minute) removes them; left there,
 * they made every drain walk thousands of them.
 */
export const OUTBOX_VACUUM_AFTER_ROWS = 5_000;
export const OUTBOX_VACUUM_INTERVAL_MS = 5_000;

/**
 * The INSERT of outbox rows given as the JSON of `outboxRecords` in parameter `param`, for a
 * caller that writes its state and its events in one statement (one round trip, no BEGIN).
 */
export function outboxInsertSql(param: string): string {
  return outboxInsertFromSql(`SELECT id, tenant_id, kind, subject, event, headers FROM jsonb_to_recordset(${param}::jsonb)
       AS r(id text, tenant_id text, kind text, subject text, event jsonb, headers jsonb)`);
}

/**
 * The INSERT of outbox rows produced by `select` (columns id, tenant_id, kind, subject, event,
 * headers, in that order), for a statement that derives them from other rows (the dispatcher's
 * fan-out). The caller calls markOutboxWritten when it wrote any.
 */
export function outboxInsertFromSql(select: string): string {
  return `INSERT INTO outbox (id, tenant_id, kind, subject, event, headers)
     ${select}`;
}

/** The NATS headers every outbox message carries: the operation's transaction, tenant and trace. */
export function outboxHeaders(tenantId: string, transactionId: string): Record<string, string> {
  const traceparent = currentContext()?.traceparent;
  return { [TRANSACTION_ID_NATS_HEADER]: transactionId, [TENANT_ID_NATS_HEADER]: tenantId, ...(traceparent ? { [TRACEPARENT_HEADER]: traceparent } : {}) };
}

/** A message for the relay that is not a catalog event (deliveries, token revocations). */
export interface OutboxMessage {
  id: string;
  tenantId: string;
  /** What the row carries, for operators reading the table (not a catalog kind). */
  kind: string;
  subject: string;
  body: unknown;
  transactionId: string;
}

/**
 * Writes messages to the outbox inside the caller's transaction. A message whose id is already
 * there is left as it is, so queueing the same message twice is harmless.
 */
export async function appendMessages(db: Queryable, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const rows = messages.map((m) => ({
    id: m.id,
    tenant_id: m.tenantId,
    kind: m.kind,
    subject: m.subject,
    event: m.body,
    headers: outboxHeaders(m.tenantId, m.transactionId),
  }));
  await insertOutboxRows(db, JSON.stringify(rows), { ignoreDuplicates: true });
}

/**
 * Inserts outbox rows given as the JSON of an array of { id, tenant_id, kind, subject, event,
 * headers } in the caller's transaction, and wakes this process's relay after its commit.
 */
export async function insertOutboxRows(db: Queryable, rowsJson: string, options: { ignoreDuplicates?: boolean } = {}): Promise<void> {
  await db.query(`${outboxInsertSql("$1")}${options.ignoreDuplicates ? " ON CONFLICT (id) DO NOTHING" : ""}`, [rowsJson]);
  markOutboxWritten(db);
}

interface OutboxRow {
  id: string;
  subject: string;
  event: unknown;
  headers: Record<string, string>;
}

export interface OutboxRelay {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Publishes what is pending now; returns how many rows it published. */
  drainOnce(): Promise<number>;
}

export interface OutboxRelayOptions {
  pool: Pool;
  bus: Bus;
  schema: string;
  logger: Logger;
  pollIntervalMs?: number;
  /** Called after publishing a batch and before deleting it; tests use it to simulate a crash. */
  afterPublish?: (ids: string[]) => Promise<void>;
  onPublished?: (count: number) => void;
}

export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { pool, bus, schema, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? OUTBOX_POLL_INTERVAL_MS;
  let running = false;
  let loop: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;
  let wake: (() => void) | undefined;
  let dirty = true;

  const signal = () => {
    dirty = true;
    wake?.();
  };

  let deletedSinceVacuum = 0;
  let lastVacuumAt = 0;
  let vacuuming: Promise<void> | undefined;
  /** Runs beside the drains (VACUUM takes no lock that blocks inserts, deletes or selects). */
  function vacuumSoon(): void {
    if (vacuuming) return;
    deletedSinceVacuum = 0;
    lastVacuumAt = Date.now();
    vacuuming = pool
      .query("VACUUM outbox")
      .then(() => undefined)
      .catch((error) => logger.debug({ err: (error as Error).message, schema }, "outbox vacuum failed; autovacuum will do it"))
      .finally(() => (vacuuming = undefined));
  }

  async function drainOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await withBatch(async (client, rows) => {
        // Sent back to back on one connection, so the stream stores them in this order; the
        // acknowledgements are awaited together.
        await Promise.all(
          rows.map((row) => {
            const h = headers();
            for (const [k, v] of Object.entries(row.headers)) h.set(k, v);
            return publishDurable(bus, row.subject, JSON.stringify(row.event), { msgId: row.id, headers: h });
          }),
        );
        if (options.afterPublish) await options.afterPublish(rows.map((r) => r.id));
        await client.query("DELETE FROM outbox WHERE id = ANY($1)", [rows.map((r) => r.id)]);
      });
      total += published;
      deletedSinceVacuum += published;
      if (deletedSinceVacuum >= OUTBOX_VACUUM_AFTER_ROWS && Date.now() - lastVacuumAt >= OUTBOX_VACUUM_INTERVAL_MS) vacuumSoon();
      if (published < OUTBOX_BATCH_SIZE) return total;
    }
  }

  async function withBatch(fn: (client: PoolClient, rows: OutboxRow[]) => Promise<void>): Promise<number> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // SKIP LOCKED lets several replicas relay side by side without publishing a row twice.
      const { rows } = await client.query<OutboxRow>(`SELECT id, subject, event, headers FROM outbox ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, [
        OUTBOX_BATCH_SIZE,
      ]);
      if (rows.length > 0) await fn(client, rows);
      await client.query("COMMIT");
      if (rows.length > 0) options.onPublished?.(rows.length);
      return rows.length;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async function run(): Promise<void> {
    while (running) {
      if (dirty) {
        dirty = false;
        try {
          const published = await drainOnce();
          if (published > 0 && dirty) await sleep(OUTBOX_LINGER_MS, () => {});
        } catch (error) {
          if (!running) break;
          logger.warn({ err: (error as Error).message, schema }, "outbox relay could not publish; will retry");
          dirty = true;
          await sleep(OUTBOX_RETRY_DELAY_MS, (w) => (wake = w));
          continue;
        }
      }
      // A commit while the drain ran set `dirty` (its wake-up found no sleep to end): drain again
      // now, not a poll interval later.
      if (dirty) continue;
      await sleep(pollIntervalMs, (w) => (wake = w));
      // A missed wake-up (another process's commit) is caught by polling.
      dirty = true;
    }
  }

  return {
    async start() {
      if (running) return;
      running = true;
      unsubscribe = onOutboxCommitted(pool, signal);
      loop = run();
    },
    async stop() {
      if (!running) return;
      running = false;
      unsubscribe?.();
      wake?.();
      await loop;
      // Publish what committed while stopping, so a clean shutdown leaves nothing behind.
      await drainOnce().catch((error) => logger.warn({ err: (error as Error).message, schema }, "outbox left pending at stop"));
      await vacuuming;
    },
    drainOnce,
  };
}

function sleep(ms: number, register: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    register(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
