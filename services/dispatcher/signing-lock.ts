// The lock behind the rotation's promise that the old secret signs nothing once the rotation has
// committed. Whatever signs (attempts, and the event intake, which signs a new event's deliveries:
// fan-out.ts) holds each of its hooks' locks shared from before it reads the secrets until it has
// signed; a rotation holds its hook's lock exclusively while it replaces the secret.
// So a rotation waits for the attempts that read the old secret, and attempts that come during a
// rotation wait for its commit and read the new one (their read is a later statement, with a later
// snapshot, than the lock).
//
// Transaction-scoped advisory locks rather than FOR KEY SHARE on the hook rows: a row lock is
// written into the row (a WAL record per hook per batch, and a commit to flush), which made every
// batch of attempts a writing transaction; an advisory lock lives only in the lock table.
import { textLiteral, type Pool, type PoolClient, type Queryable } from "@waybill/platform/db.js";

/** First key of the dispatcher's signing locks (the second is the hook id's hash). */
export const SIGNING_LOCK_SPACE = 0x5716;

/**
 * A statement of one jsonb parameter, run as an SQL-level prepared statement (`name`, prepared
 * once per connection), with its argument: the statement taking the signing locks, and what an
 * attempt or the intake reads under them.
 */
export interface PreparedCall {
  name: string;
  /** The statement, its parameter written $1. */
  text: string;
  argument: string;
}

/** The statements each connection has prepared, by name. */
const preparedOn = new WeakMap<object, Set<string>>();
const UNDEFINED_PREPARED_STATEMENT = "26000";
const DUPLICATE_PREPARED_STATEMENT = "42P05";

/**
 * A transaction whose signing is done and whose COMMIT has not been sent yet, per pool: the next
 * batch's statement begins with that COMMIT (one write and one statement fewer per batch under
 * load), or, when no batch follows in the same turn of the event loop, the COMMIT goes alone.
 * `settle` settles the transaction's `committed` promise. One per pool: with batches in flight
 * side by side (the event intake), one done while another waits here commits alone.
 */
const awaitingCommit = new WeakMap<Pool, { client: PoolClient; alone: NodeJS.Immediate; settle: (error?: Error) => void }>();

/**
 * The locks are prepared statements like the reads: written out as literal text, the statement
 * taking them was parsed and planned anew for every batch, which was a fifth of PostgreSQL's CPU
 * for taking events in one at a time (`perf record` of the backend under `bench:intake-cost`).
 * Each takes its locks in id order, like every taker of several, so that waits cannot form a cycle
 * (the ordered subquery is not flattened: the locks are taken in the order it answers).
 */
const LOCK_HOOKS_SQL = `SELECT l.id, pg_advisory_xact_lock_shared(${SIGNING_LOCK_SPACE}, hashtext(l.id))
  FROM (SELECT DISTINCT id FROM jsonb_array_elements_text($1) AS ids(id) ORDER BY id) l`;
const LOCK_SUBSCRIBED_HOOKS_SQL = `SELECT l.id, pg_advisory_xact_lock_shared(${SIGNING_LOCK_SPACE}, hashtext(l.id))
  FROM (SELECT h.id FROM hooks h
         WHERE h.status = 'active' AND (h.tenant_id, h.on_kind) IN (SELECT s ->> 0, s ->> 1 FROM jsonb_array_elements($1) AS s)
         ORDER BY h.id) l`;

/** The statement that takes the signing locks of `hookIds` shared, and answers their ids (`id` per row). */
export function lockHooks(hookIds: string[]): PreparedCall {
  return { name: "dispatcher_lock_hooks", text: LOCK_HOOKS_SQL, argument: JSON.stringify(hookIds) };
}

/**
 * The statement that takes shared the signing locks of the active hooks subscribed to any of
 * these kinds in these tenants, and answers their ids (`id` per row): what a later statement of
 * the transaction reads of those hooks may be signed with until the COMMIT.
 */
export function lockSubscribedHooks(subscriptions: { tenantId: string; kind: string }[]): PreparedCall {
  const pairs = new Map(subscriptions.map((s) => [`${s.tenantId}\n${s.kind}`, [s.tenantId, s.kind]]));
  return { name: "dispatcher_lock_subscribed_hooks", text: LOCK_SUBSCRIBED_HOOKS_SQL, argument: JSON.stringify([...pairs.values()]) };
}

/** What `signUnderLocks` answers: `sign`'s value, and when the transaction it ran in has committed. */
export interface Signed<T> {
  value: T;
  /**
   * Resolves once the COMMIT has run; rejects if it may not have (the round trip that carried it
   * failed). A transaction that wrote (the event intake) must not be taken as done before this.
   */
  committed: Promise<void>;
}

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
export async function withSigningLocks<T>(pool: Pool, hookIds: string[], read: PreparedCall, sign: (rows: unknown[]) => T): Promise<T> {
  return (await signUnderLocks(pool, lockHooks(hookIds), read, sign)).value;
}

/**
 * As withSigningLocks, with the locks taken by `locks` (lockHooks, lockSubscribedHooks), whose
 * rows `sign` gets too; answers when the transaction has committed as well (see Signed).
 */
export async function signUnderLocks<T>(
  pool: Pool,
  locks: PreparedCall,
  read: PreparedCall,
  sign: (rows: unknown[], lockRows: unknown[]) => T,
): Promise<Signed<T>> {
  const open = awaitingCommit.get(pool);
  if (open) {
    awaitingCommit.delete(pool);
    clearImmediate(open.alone);
  }
  const client = open?.client ?? (await pool.connect());
  let value: T;
  try {
    const { rows, lockRows } = await lockedRead(client, locks, read, open?.settle);
    value = sign(rows, lockRows);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    client.release();
    throw error;
  }
  let settle!: (error?: Error) => void;
  const committed = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  committed.catch(() => {}); // read-only callers do not wait for it
  // Another transaction may be waiting for its COMMIT already (batches in flight side by side):
  // then this one commits alone, and the other keeps its place at the head of the next batch.
  const registered = !awaitingCommit.has(pool);
  const alone = setImmediate(() => {
    if (registered) {
      if (awaitingCommit.get(pool)?.client !== client) return;
      awaitingCommit.delete(pool);
    }
    // A failed COMMIT drops the connection; the caller learns of it through `committed`.
    client.query("COMMIT").then(
      () => {
        client.release();
        settle();
      },
      (error: Error) => {
        client.release(error);
        settle(error);
      },
    );
  });
  if (registered) awaitingCommit.set(pool, { client, alone, settle });
  return { value, committed };
}

/**
 * One round trip: the COMMIT of the connection's open transaction (when `commitBefore` is given,
 * which it settles), BEGIN, the locks and the read (each prepared first if this connection has not
 * prepared it yet).
 */
async function lockedRead(
  client: PoolClient,
  locks: PreparedCall,
  read: PreparedCall,
  commitBefore: ((error?: Error) => void) | undefined,
  retried = false,
): Promise<{ rows: unknown[]; lockRows: unknown[] }> {
  const names = preparedOn.get(client) ?? new Set<string>();
  preparedOn.set(client, names);
  const prepare = [locks, read]
    .filter(({ name }) => !names.has(name))
    .map(({ name, text }) => `PREPARE ${name}(jsonb) AS ${text}; `)
    .join("");
  try {
    const results = (await client.query(
      `${commitBefore ? "COMMIT; " : ""}BEGIN; ${prepare}EXECUTE ${locks.name}(${textLiteral(locks.argument)}); EXECUTE ${read.name}(${textLiteral(read.argument)})`,
    )) as unknown as { rows: unknown[] }[];
    commitBefore?.();
    names.add(locks.name).add(read.name);
    return { rows: results[results.length - 1].rows, lockRows: results[results.length - 2].rows };
  } catch (error) {
    // The connection's prepared statements are not what was noted (DEALLOCATE, a pooler): learn
    // which it has and try once more in a new transaction (the COMMIT before it has run).
    const code = (error as { code?: string }).code;
    if (retried || (code !== UNDEFINED_PREPARED_STATEMENT && code !== DUPLICATE_PREPARED_STATEMENT)) {
      commitBefore?.(error as Error);
      throw error;
    }
    commitBefore?.();
    await client.query("ROLLBACK");
    const { rows } = await client.query<{ name: string }>("SELECT name FROM pg_prepared_statements");
    names.clear();
    for (const { name } of rows) names.add(name);
    return lockedRead(client, locks, read, undefined, true);
  }
}

/** Takes the signing lock of one hook exclusively, until the caller's transaction ends. */
export async function lockForRotation(db: Queryable, hookId: string): Promise<void> {
  await db.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [SIGNING_LOCK_SPACE, hookId]);
}
