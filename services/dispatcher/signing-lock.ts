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
 * Runs `fn` (which reads and signs, and writes nothing) in a transaction that holds the signing
 * locks of `hookIds` shared. BEGIN and the locks go in one round trip: the simple protocol takes
 * several statements but no parameters, so the ids are quoted by the driver. The result is
 * returned once `fn` has signed, without waiting for the COMMIT's answer: the locks are held
 * until PostgreSQL runs that COMMIT, which is after the signing, so a rotation still waits for
 * it; the attempts need not (that round trip was a third of the time a delivery held its hook's
 * lane before its request went out). The connection returns to the pool when the COMMIT is done.
 */
export async function withSigningLocks<T>(pool: Pool, hookIds: string[], fn: (client: PoolClient) => Promise<T>): Promise<T> {
  // In id order, like every taker of several, so that waits cannot form a cycle.
  const locks = [...new Set(hookIds)].sort().map((id) => `pg_advisory_xact_lock_shared(${SIGNING_LOCK_SPACE}, hashtext(${escapeLiteral(id)}))`);
  const client = await pool.connect();
  let result: T;
  try {
    await client.query(`BEGIN; SELECT ${locks.length > 0 ? locks.join(", ") : "1"}`);
    result = await fn(client);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release();
    throw error;
  }
  // A failed COMMIT of a transaction that wrote nothing loses nothing; the connection is dropped.
  client.query("COMMIT").then(
    () => client.release(),
    (error: Error) => client.release(error),
  );
  return result;
}

/** Takes the signing lock of one hook exclusively, until the caller's transaction ends. */
export async function lockForRotation(db: Queryable, hookId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [SIGNING_LOCK_SPACE, hookId]);
}
