// One SQL transaction on a connection of the pool, and what must happen once it has committed
// (the outbox's wake-up of its relay registers here, so no writer has to remember it).
import type { Pool, PoolClient, Queryable } from "./db.js";

/** A transaction withTransaction has open: its pool, and hooks that run after its COMMIT. */
export interface OpenTransaction {
  pool: Pool;
  /** Runs `hook` once the transaction has committed; never when it rolls back. */
  afterCommit(hook: () => void): void;
}

/** The transaction open on each connection checked out by withTransaction. */
const open = new WeakMap<object, OpenTransaction>();

/** The transaction withTransaction has open on `db`, if `db` is such a connection. */
export function openTransaction(db: Queryable): OpenTransaction | undefined {
  return open.get(db);
}

/**
 * Runs `fn` in a transaction. `begin` opens it: "BEGIN", or BEGIN followed by statements without
 * parameters that belong at its start (taking locks), sent in the same round trip. After COMMIT
 * the hooks registered through openTransaction run, in order.
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>, begin = "BEGIN"): Promise<T> {
  const client = await pool.connect();
  const hooks: (() => void)[] = [];
  open.set(client, { pool, afterCommit: (hook) => hooks.push(hook) });
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query("COMMIT");
    open.delete(client);
    runHooks(hooks);
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    open.delete(client);
    client.release();
  }
}

/** A hook that throws must not turn a committed transaction into a failed call. */
function runHooks(hooks: readonly (() => void)[]): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch (error) {
      process.emitWarning(`a hook after COMMIT threw: ${(error as Error).message}`);
    }
  }
}
