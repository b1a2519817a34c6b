// The transactional outbox. Events (see @waybill/contracts/events/outbox-events.ts) and messages are written in the caller's SQL transaction; the
// relay publishes pending rows to JetStream with Nats-Msg-Id = event id and then deletes them
// (JetStream and the dispatcher's event log keep the history; a kept row would only grow the
// table and cost an index update per event). A crash between publish and delete re-publishes
// the same id, which JetStream deduplicates.
// Rows committed by this process are handed to the relay in memory (outbox-signal.ts: writing
// them registers the hand-over on their commit, so no caller has to) and published at once, then deleted in batches: no read of the table, and an event is on NATS a
// round trip after its commit. The table is read only for what memory does not hold: rows of
// another process, of a publish that failed, of a crash. Nothing else wakes the relay but its
// poll (no NOTIFY: a notifying transaction holds a global lock through its commit flush).
import { currentContext, TRACEPARENT_HEADER } from "./context.js";
import type { Logger } from "./logger.js";
import { outboxTraceparent } from "./nats-tracing.js";
import { TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Bus } from "./nats.js";
import { createCommittedPublisher, publishRows } from "./outbox-publisher.js";
import { onOutboxCommitted, outboxRowsWritten, type OutboxRow } from "./outbox-signal.js";
import { isoTimestampSql, type Pool, type PoolClient, type Queryable } from "./db.js";

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

export interface OutboxInsertOptions {
  /** A row whose id is already there is left as it is. */
  ignoreDuplicates?: boolean;
}

/**
 * The INSERT of outbox rows given as the JSON of `outboxRecords` in parameter `param`, for a
 * caller that writes its state and its events in one statement (one round trip, no BEGIN).
 */
export function outboxInsertSql(param: string, options: OutboxInsertOptions = {}): string {
  return outboxInsertFromSql(
    `SELECT id, tenant_id, kind, subject, event, headers, timed FROM jsonb_to_recordset(${param}::jsonb)
       AS r(id text, tenant_id text, kind text, subject text, event jsonb, headers jsonb, timed boolean)`,
    options,
  );
}

/**
 * The INSERT of outbox rows produced by `select` (columns id, tenant_id, kind, subject, event,
 * headers, timed, in that order), for a statement that derives them from other rows. It returns
 * each row's id and time (see applyOutboxTimes). The function that runs it calls
 * outboxRowsWritten with the rows it wrote, which wakes the relay on their commit.
 *
 * A timed row's event gets its `time` from the database as the row is written: later than the
 * transaction's now(), which stamps the rows the event announces (created_at, updated_at), and
 * on the same clock. A time taken in the service before the write (an order waiting for its
 * batch) was earlier than the resource's own timestamps.
 */
export function outboxInsertFromSql(select: string, options: OutboxInsertOptions = {}): string {
  return `INSERT INTO outbox (id, tenant_id, kind, subject, event, headers)
     SELECT r.id, r.tenant_id, r.kind, r.subject,
            CASE WHEN r.timed THEN jsonb_set(r.event, '{time}', to_jsonb(${isoTimestampSql("clock_timestamp()")})) ELSE r.event END, r.headers
       FROM (${select}) AS r(id, tenant_id, kind, subject, event, headers, timed)
     ${options.ignoreDuplicates ? "ON CONFLICT (id) DO NOTHING " : ""}RETURNING id, event->>'time' AS time`;
}

/**
 * Gives the timed records the time the database wrote into their rows (`rows`: what the INSERT
 * returned), so that what the relay publishes from memory is what the table holds.
 */
export function applyOutboxTimes(records: readonly OutboxRecord[], rows: readonly { id: string; time: string | null }[]): void {
  const times = new Map(rows.map((row) => [row.id, row.time]));
  for (const record of records) {
    const time = times.get(record.id);
    if (record.timed && time) (record.event as { time?: string }).time = time;
  }
}

/** The NATS headers every outbox message carries: the operation's transaction, tenant and trace. */
export function outboxHeaders(tenantId: string, transactionId: string): Record<string, string> {
  const traceparent = outboxTraceparent(currentContext());
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

/** An outbox row to write: what the relay publishes, and what operators read in the table. */
export interface OutboxRecord extends OutboxRow {
  tenantId: string;
  /** A catalog kind, or what a message carries (not a catalog kind). */
  kind: string;
  /** The event's `time` is set by the database as the row is written (see outboxInsertFromSql). */
  timed?: boolean;
}

/**
 * Writes messages to the outbox inside the caller's transaction. A message whose id is already
 * there is left as it is, so queueing the same message twice is harmless.
 */
export async function appendMessages(db: Queryable, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const records = messages.map((m) => ({
    id: m.id,
    tenantId: m.tenantId,
    kind: m.kind,
    subject: m.subject,
    event: m.body,
    headers: outboxHeaders(m.tenantId, m.transactionId),
  }));
  await insertOutboxRows(db, records, { ignoreDuplicates: true });
}

/** The parameter of outboxInsertSql for these records. */
export function outboxRecordsJson(records: readonly OutboxRecord[]): string {
  return JSON.stringify(outboxRecordRows(records));
}

/** The records as outboxInsertSql reads them, for a caller that nests them in JSON of its own. */
export function outboxRecordRows(records: readonly OutboxRecord[]) {
  return records.map((r) => ({
    id: r.id,
    tenant_id: r.tenantId,
    kind: r.kind,
    subject: r.subject,
    event: r.event,
    headers: r.headers,
    timed: r.timed === true,
  }));
}

export { outboxRowsWritten };

/**
 * Inserts outbox rows on the pool or in the caller's transaction (withTransaction) and hands them
 * to this process's relay once they have committed.
 */
export async function insertOutboxRows(db: Queryable, records: readonly OutboxRecord[], options: OutboxInsertOptions = {}): Promise<void> {
  const { rows } = await db.query<{ id: string; time: string | null }>(outboxInsertSql("$1", options), [outboxRecordsJson(records)]);
  applyOutboxTimes(records, rows);
  outboxRowsWritten(db, records);
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

  const readTableSoon = () => {
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

  function countDeleted(count: number): void {
    deletedSinceVacuum += count;
    if (deletedSinceVacuum >= OUTBOX_VACUUM_AFTER_ROWS && Date.now() - lastVacuumAt >= OUTBOX_VACUUM_INTERVAL_MS) vacuumSoon();
  }

  const committed = createCommittedPublisher({
    pool,
    bus,
    logger,
    schema,
    batchSize: OUTBOX_BATCH_SIZE,
    lingerMs: OUTBOX_LINGER_MS,
    afterPublish: options.afterPublish,
    onPublished: options.onPublished,
    onDeleted: countDeleted,
    onLeftInTable: readTableSoon,
  });
  /** Rows committed here come with the signal; a commit without them means: read the table. */
  const onCommitted = (rows: readonly OutboxRow[] | undefined) => (rows ? committed.take(rows) : readTableSoon());

  async function drainOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await withBatch(async (client, rows) => {
        await publishRows(bus, rows);
        if (options.afterPublish) await options.afterPublish(rows.map((r) => r.id));
        await client.query("DELETE FROM outbox WHERE id = ANY($1)", [rows.map((r) => r.id)]);
      });
      total += published;
      countDeleted(published);
      if (published < OUTBOX_BATCH_SIZE) return total;
    }
  }

  async function withBatch(fn: (client: PoolClient, rows: OutboxRow[]) => Promise<void>): Promise<number> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // SKIP LOCKED lets several replicas relay side by side without publishing a row twice;
      // rows this process is publishing from memory are left to it.
      const { rows } = await client.query<OutboxRow>(
        "SELECT id, subject, event, headers FROM outbox WHERE NOT (id = ANY($2::text[])) ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
        [OUTBOX_BATCH_SIZE, committed.inHand()],
      );
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
      unsubscribe = onOutboxCommitted(pool, onCommitted);
      loop = run();
    },
    async stop() {
      if (!running) return;
      running = false;
      unsubscribe?.();
      wake?.();
      await loop;
      await committed.settled();
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
