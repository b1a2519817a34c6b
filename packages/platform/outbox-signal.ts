// Wakes the outbox relay of this process when a transaction that wrote outbox rows commits (no
// NOTIFY: a notifying transaction holds a global lock through its commit flush).
import type { EventEmitter } from "node:events";
import type { Pool, Queryable } from "./db.js";

const OUTBOX_COMMITTED_EVENT = "waybill:outbox-committed";
/** Connections whose open transaction wrote outbox rows (see markOutboxWritten). */
const wroteOutbox = new WeakSet<object>();

/**
 * Notes that the transaction open on `db` wrote outbox rows, so that its commit wakes the outbox
 * relay. Only such commits do: waking it on every commit made it drain, empty, after each
 * read or record of a busy service, taking connections the work needed.
 */
export function markOutboxWritten(db: Queryable): void {
  wroteOutbox.add(db);
}

/** Tells the relay that outbox rows committed outside withTransaction (a single-statement write). */
export function notifyOutboxCommitted(pool: Pool): void {
  (pool as unknown as EventEmitter).emit(OUTBOX_COMMITTED_EVENT);
}

/** Calls `listener` after every commit on `pool` that wrote outbox rows; returns the unsubscribe. */
export function onOutboxCommitted(pool: Pool, listener: () => void): () => void {
  const emitter = pool as unknown as EventEmitter;
  emitter.on(OUTBOX_COMMITTED_EVENT, listener);
  return () => emitter.off(OUTBOX_COMMITTED_EVENT, listener);
}

/** Whether the transaction open on `db` wrote outbox rows. */
export function wroteOutboxRows(db: Queryable): boolean {
  return wroteOutbox.has(db);
}

/** Forgets the mark when the transaction on `db` ended (its connection goes back to the pool). */
export function clearOutboxWritten(db: Queryable): void {
  wroteOutbox.delete(db);
}
