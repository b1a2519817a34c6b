// Hands the outbox relay of this process what was written to the outbox, once it has committed
// (no NOTIFY: a notifying transaction holds a global lock through its commit flush). The writer
// of outbox rows registers this itself (outboxRowsWritten, called by the outbox's own writers),
// so a caller cannot forget it: a statement on the pool has committed when it returns; in a
// transaction of withTransaction the hand-over waits for its COMMIT (transactions.ts).
// Rows the writer holds in memory are published from there at once; a commit whose rows are only
// in the table (derived in SQL) wakes the relay to read them.
import pg from "pg";
import type { Pool, Queryable } from "./db.js";
import { openTransaction, type OpenTransaction } from "./transactions.js";

/** An outbox row as its writer built it: what the relay publishes. */
export interface OutboxRow {
  id: string;
  subject: string;
  event: unknown;
  headers: Record<string, string>;
}

/** The rows a commit wrote, or "in-table" when some exist only in the table. */
type OutboxWritten = OutboxRow[] | "in-table";

type CommitListener = (rows: readonly OutboxRow[] | undefined) => void;

/** The relays of this process, by the pool whose commits they publish. */
const listeners = new WeakMap<Pool, Set<CommitListener>>();

/** What each open transaction wrote to the outbox so far, handed over in one piece at its commit. */
const pending = new WeakMap<OpenTransaction, OutboxWritten>();

/**
 * Notes that `db` wrote outbox rows (`rows`, or rows the caller does not hold when absent), so
 * that their commit hands them to the relay: at once for a statement on the pool (it committed
 * alone), at COMMIT for a transaction of withTransaction, never when it rolls back. Only such
 * commits wake the relay: waking it on every commit made it drain, empty, after each read or
 * record of a busy service. Any other connection (checked out by hand, where a COMMIT can come
 * from anywhere) is refused: its rows would wait for the relay's poll.
 */
export function outboxRowsWritten(db: Queryable, rows?: readonly OutboxRow[]): void {
  if (db instanceof pg.Pool) {
    announce(db, rows ? [...rows] : "in-table");
    return;
  }
  const transaction = openTransaction(db);
  if (!transaction) throw new Error("outbox rows are written on the pool or in withTransaction, whose commit wakes the outbox relay");
  const before = pending.get(transaction);
  if (before === undefined) transaction.afterCommit(() => announce(transaction.pool, pending.get(transaction) ?? "in-table"));
  // One hand-over per commit, in the order written: a row only in the table makes the relay read
  // the whole commit from there, so that none of its rows overtakes another.
  pending.set(transaction, before === "in-table" || !rows ? "in-table" : [...(before ?? []), ...rows]);
}

/** Calls `listener` after every commit on `pool` that wrote outbox rows; returns the unsubscribe. */
export function onOutboxCommitted(pool: Pool, listener: CommitListener): () => void {
  const set = listeners.get(pool) ?? new Set<CommitListener>();
  listeners.set(pool, set);
  set.add(listener);
  return () => set.delete(listener);
}

function announce(pool: Pool, written: OutboxWritten): void {
  for (const listener of listeners.get(pool) ?? []) listener(written === "in-table" ? undefined : written);
}
