// The lock behind the rotation's promise that the old secret signs nothing once the rotation has
// committed. Attempts hold each of their hooks' locks shared from before they read the secrets
// until they have signed; a rotation holds its hook's lock exclusively while it replaces the secret.
// So a rotation waits for the attempts that read the old secret, and attempts that come during a
// rotation wait for its commit and read the new one (their read is a later statement, with a later
// snapshot, than the lock).
//
// Transaction-scoped advisory locks rather than FOR KEY SHARE on the hook rows: a row lock is
// written into the row (a WAL record per hook per batch, and a commit to flush), which made every
// batch of attempts a writing transaction; an advisory lock lives only in the lock table.
import { escapeLiteral, type Pool, type PoolClient, type Queryable } from "@waybill/platform/db.js";

/** First key of the dispatcher's signing locks (the second is the hook id's hash). */
export const SIGNING_LOCK_SPACE = 0x5716;

/**
 * What an attempt reads under its hooks' signing locks: a statement of one jsonb parameter, run
 * as an SQL-level prepared statement (`name`, prepared once per connection), with its argument.
 */
export interface LockedRead {
  name: string;
  /** The statement, its parameter written $1. */
  text: string;
  argument: string;
}

/** Connections that have prepared a locked read, by its name. */
const preparedOn = new WeakMap<object, Set<string>>();
const UNDEFINED_PREPARED_STATEMENT = "26000";
const DUPLICATE_PREPARED_STATEMENT = "42P05";

/**
 * A transaction whose signing is done and whose COMMIT has not been sent yet, per pool: the next
 * batch's statement begins with that COMMIT (one write and one statement fewer per batch under
 * load), or, when no batch follows in the same turn of the event loop, the COMMIT goes alone.
 */
const awaitingCommit = new WeakMap<Pool, { client: PoolClient; alone: NodeJS.Immediate }>();

/**
 * Takes the signing locks of `hookIds` shared in a new transaction, runs `read` after them and
 * hands its rows to `sign` (which writes nothing). BEGIN, the locks and the read go in one round
 * trip: the simple protocol takes several statements but no parameters, so the ids and the
 * argument are quoted by the driver, and the read is a later statement than the locks, with a
 * later snapshot. The result is returned once `sign` is done, without waiting for the COMMIT: the
 * locks are held until PostgreSQL runs it, after the signing, so a rotation still waits for it;
 * the attempts need not. The COMMIT goes at the head of the next batch's round trip, or alone at
 * the end of this turn of the event loop (see awaitingCommit), and the connection returns to the
 * pool when a COMMIT that went alone is done. Each round trip saved here is time every delivery
 * holds its hook's lane place before its request goes out.
 */
export async function withSigningLocks<T>(pool: Pool, hookIds: string[], read: LockedRead, sign: (rows: unknown[]) => T): Promise<T> {
  // In id order, like every taker of several, so that waits cannot form a cycle.
  const locks = [...new Set(hookIds)].sort().map((id) => `pg_advisory_xact_lock_shared(${SIGNING_LOCK_SPACE}, hashtext(${escapeLiteral(id)}))`);
  const open = awaitingCommit.get(pool);
  if (open) {
    awaitingCommit.delete(pool);
    clearImmediate(open.alone);
  }
  const client = open?.client ?? (await pool.connect());
  let result: T;
  try {
    const rows = await lockedRead(client, locks, read, open !== undefined);
    result = sign(rows);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release();
    throw error;
  }
  const alone = setImmediate(() => {
    if (awaitingCommit.get(pool)?.client !== client) return;
    awaitingCommit.delete(pool);
    // A failed COMMIT of a transaction that wrote nothing loses nothing; the connection is dropped.
    client.query("COMMIT").then(
      () => client.release(),
      (error: Error) => client.release(error),
    );
  });
  awaitingCommit.set(pool, { client, alone });
  return result;
}

async function lockedRead(client: PoolClient, locks: string[], read: LockedRead, commitFirst: boolean, retried = false): Promise<unknown[]> {
  const names = preparedOn.get(client) ?? new Set<string>();
  preparedOn.set(client, names);
  const prepare = names.has(read.name) ? "" : `PREPARE ${read.name}(jsonb) AS ${read.text}; `;
  try {
    const results = (await client.query(
      `${commitFirst ? "COMMIT; " : ""}BEGIN; SELECT ${locks.length > 0 ? locks.join(", ") : "1"}; ${prepare}EXECUTE ${read.name}(${escapeLiteral(read.argument)})`,
    )) as unknown as { rows: unknown[] }[];
    names.add(read.name);
    return results[results.length - 1].rows;
  } catch (error) {
    // The connection's prepared statements are not what was noted (DEALLOCATE, a pooler): note
    // what the error says and try once more in a new transaction (the COMMIT before it has run).
    const code = (error as { code?: string }).code;
    if (retried || (code !== UNDEFINED_PREPARED_STATEMENT && code !== DUPLICATE_PREPARED_STATEMENT)) throw error;
    if (code === UNDEFINED_PREPARED_STATEMENT) names.delete(read.name);
    else names.add(read.name);
    await client.query("ROLLBACK");
    return lockedRead(client, locks, read, false, true);
  }
}

/** Takes the signing lock of one hook exclusively, until the caller's transaction ends. */
export async function lockForRotation(db: Queryable, hookId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [SIGNING_LOCK_SPACE, hookId]);
}
