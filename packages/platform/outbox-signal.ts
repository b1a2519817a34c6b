// Hands the outbox relay of this process what a transaction wrote to the outbox, once it has
// committed (no NOTIFY: a notifying transaction holds a global lock through its commit flush).
// Rows the writer still holds in memory are published from there at once; a commit whose rows
// are only in the table (derived in SQL) wakes the relay to read them.
import type { EventEmitter } from "node:events";
import pg from "pg";
import type { Pool, Queryable } from "./db.js";

const OUTBOX_COMMITTED_EVENT = "waybill:outbox-committed";

/** An outbox row as its writer built it: what the relay publishes. */
export interface OutboxRow {
  id: string;
  subject: string;
  event: unknown;
  headers: Record<string, string>;
}

/** The rows written by a transaction, or "in-table" when some exist only in the table. */
export type OutboxWritten = OutboxRow[] | "in-table";

/** What the open transaction on each connection wrote to the outbox (see markOutboxWritten). */
const written = new WeakMap<object, OutboxWritten>();

/**
 * Notes that the transaction open on `db` wrote outbox rows (`rows`, or rows the caller does not
 * hold when absent), so that its commit hands them to the relay. Only such commits wake it:
 * waking it on every commit made it drain, empty, after each read or record of a busy service.
 * A statement on the pool itself commits alone: its caller calls notifyOutboxCommitted instead.
 */
export function markOutboxWritten(db: Queryable, rows?: readonly OutboxRow[]): void {
  if (isPool(db)) return;
  const before = written.get(db);
  if (before === "in-table" || !rows) written.set(db, "in-table");
  else written.set(db, [...(before ?? []), ...rows]);
}

/**
 * Tells the relay that outbox rows committed: `rows` when the caller holds them, nothing when
 * they are only in the table (a single-statement write, another process's rows).
 */
export function notifyOutboxCommitted(pool: Pool, rows?: readonly OutboxRow[]): void {
  (pool as unknown as EventEmitter).emit(OUTBOX_COMMITTED_EVENT, rows);
}

/** Calls `listener` after every commit on `pool` that wrote outbox rows; returns the unsubscribe. */
export function onOutboxCommitted(pool: Pool, listener: (rows: readonly OutboxRow[] | undefined) => void): () => void {
  const emitter = pool as unknown as EventEmitter;
  emitter.on(OUTBOX_COMMITTED_EVENT, listener);
  return () => emitter.off(OUTBOX_COMMITTED_EVENT, listener);
}

/** What the transaction open on `db` wrote to the outbox, if anything. */
export function outboxWritten(db: Queryable): OutboxWritten | undefined {
  return written.get(db);
}

/** Forgets the mark when the transaction on `db` ended (its connection goes back to the pool). */
export function clearOutboxWritten(db: Queryable): void {
  written.delete(db);
}

function isPool(db: Queryable): boolean {
  return db instanceof pg.Pool;
}
