// The signing locks on a real PostgreSQL: held shared while an attempt reads and signs, so a
// rotation waits; the read runs after the locks in the same round trip, both statements prepared
// once per connection (and again when the connection lost it); the locks and the connection are
// let go once the transaction's COMMIT has run, which the attempt does not wait for, and at once
// when the signing fails.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { lockHooks, SIGNING_LOCK_SPACE, signUnderLocks, withSigningLocks, type PreparedCall } from "../services/dispatcher/signing-lock.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";

let env: TestEnvironment;
/** One connection, so that every call below uses the same one. */
let pool: Pool;
let other: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "public", max: 1, applicationName: "signing-lock-test" });
  other = createPool({ databaseUrl: env.databaseUrl, schema: "public", max: 1, applicationName: "signing-lock-test-rotation" });
});
afterAll(async () => {
  await pool?.end();
  await other?.end();
  await env?.cleanup();
});

/** Whether a rotation could take the hook's lock now (without waiting for it). */
async function rotationCouldLock(hookId: string): Promise<boolean> {
  const { rows } = await other.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked", [SIGNING_LOCK_SPACE, hookId]);
  if (rows[0].locked) await other.query("SELECT pg_advisory_unlock($1, hashtext($2))", [SIGNING_LOCK_SPACE, hookId]);
  return rows[0].locked;
}

const allIdle = async () => (pool.totalCount === pool.idleCount ? true : undefined);
const read = (argument: unknown): PreparedCall => ({
  name: "signing_lock_test_read",
  text: "SELECT x.n, x.name FROM jsonb_to_recordset($1::jsonb) AS x(n int, name text) ORDER BY x.n",
  argument: JSON.stringify(argument),
});

describe("signing locks", () => {
  it("reads after the locks, so a rotation holding one makes the read wait for its commit", async () => {
    const rotation = await other.connect();
    try {
      await rotation.query("BEGIN");
      await rotation.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [SIGNING_LOCK_SPACE, "hook_a"]);
      let settled = false;
      const signing = withSigningLocks(
        pool,
        ["hook_b", "hook_a", "hook_b"],
        read([
          { n: 2, name: "it's" },
          { n: 1, name: "a\\b" },
        ]),
        (rows) => rows,
      ).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(settled).toBe(false);
      await rotation.query("COMMIT");
      expect(await signing).toEqual([
        { n: 1, name: "a\\b" },
        { n: 2, name: "it's" },
      ]);
    } finally {
      rotation.release();
    }
    await eventually(allIdle);
    expect(await rotationCouldLock("hook_a")).toBe(true);
    expect(await rotationCouldLock("hook_b")).toBe(true);
  });

  it("prepares the read again on a connection that lost it", async () => {
    expect(await withSigningLocks(pool, ["hook_a"], read([{ n: 1, name: "first" }]), (rows) => rows)).toEqual([{ n: 1, name: "first" }]);
    await eventually(allIdle);
    await pool.query("DEALLOCATE ALL"); // the pool's one connection: the one that prepared it
    expect(await withSigningLocks(pool, ["hook_a"], read([{ n: 1, name: "again" }]), (rows) => rows)).toEqual([{ n: 1, name: "again" }]);
    await eventually(allIdle);
    expect(await rotationCouldLock("hook_a")).toBe(true);
  });

  it("commits a batch at the head of the next one, on the same connection, or alone when none follows", async () => {
    const connect = vi.spyOn(pool, "connect");
    const heldByMe: PreparedCall = {
      name: "signing_lock_test_held",
      text: "SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND $1::jsonb IS NOT NULL",
      argument: "{}",
    };
    try {
      expect(await withSigningLocks(pool, ["hook_a", "hook_b"], heldByMe, (rows) => rows)).toEqual([{ held: 2 }]);
      // The next batch, in the same turn of the event loop, takes the connection still in the
      // first one's transaction; its round trip commits that one before its own locks and read.
      expect(await withSigningLocks(pool, ["hook_c"], heldByMe, (rows) => rows)).toEqual([{ held: 1 }]);
      expect(connect).toHaveBeenCalledTimes(1);
    } finally {
      connect.mockRestore();
    }
    // No batch follows: the COMMIT goes alone, and the locks and the connection are let go.
    await eventually(allIdle);
    for (const hook of ["hook_a", "hook_b", "hook_c"]) expect(await rotationCouldLock(hook)).toBe(true);
    const { rows } = await pool.query<{ state: string }>("SELECT state FROM pg_stat_activity WHERE application_name = 'signing-lock-test'");
    expect(rows).toEqual([{ state: "active" }]); // this query itself: no transaction left open
  });

  it("lets go of both batches' locks when the read that carries the first one's COMMIT fails", async () => {
    expect(await withSigningLocks(pool, ["hook_a"], read([{ n: 1, name: "first" }]), (rows) => rows)).toEqual([{ n: 1, name: "first" }]);
    const broken: PreparedCall = { ...read([]), argument: "not json" };
    await expect(withSigningLocks(pool, ["hook_b"], broken, (rows) => rows)).rejects.toThrow(/json/i);
    await eventually(allIdle);
    expect(await rotationCouldLock("hook_a")).toBe(true);
    expect(await rotationCouldLock("hook_b")).toBe(true);
    expect(await withSigningLocks(pool, ["hook_a"], read([{ n: 1, name: "after" }]), (rows) => rows)).toEqual([{ n: 1, name: "after" }]);
    await eventually(allIdle);
  });

  it("lets go of the locks and the connection when the signing fails", async () => {
    await expect(
      withSigningLocks(pool, ["hook_a"], read([]), () => {
        throw new Error("secret unavailable");
      }),
    ).rejects.toThrow("secret unavailable");
    await eventually(allIdle);
    expect(await rotationCouldLock("hook_a")).toBe(true);
  });
});

describe("signing locks of batches in flight side by side", () => {
  it("commits each: one whose read comes back while another waits for its COMMIT does not take that one's place", async () => {
    const two = createPool({ databaseUrl: env.databaseUrl, schema: "public", max: 2, applicationName: "signing-lock-test-two" });
    // Both batches' reads answer in the same turn of the event loop (held until both are back),
    // as two connections' answers do when they arrive together: the second finds the first
    // waiting for its COMMIT.
    const held: (() => void)[] = [];
    const together = <T>(answer: Promise<T>) =>
      new Promise<T>((resolve, reject) =>
        answer.then((value) => {
          held.push(() => resolve(value));
          if (held.length === 2) for (const release of held.splice(0)) release();
        }, reject),
      );
    const wrapped = new WeakSet<object>();
    const connect = two.connect.bind(two);
    vi.spyOn(two, "connect").mockImplementation((async () => {
      const client = await connect();
      if (!wrapped.has(client)) {
        wrapped.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...args: unknown[]) =>
          typeof args[0] === "string" && args[0].includes("EXECUTE") ? together(query(...args)) : query(...args);
      }
      return client;
    }) as typeof two.connect);
    try {
      const signed = await Promise.all([
        signUnderLocks(two, lockHooks(["hook_x", "hook_y"]), read([{ n: 1, name: "first" }]), (rows) => rows),
        signUnderLocks(two, lockHooks(["hook_x", "hook_z"]), read([{ n: 2, name: "second" }]), (rows) => rows),
      ]);
      expect(signed.map((s) => s.value)).toEqual([[{ n: 1, name: "first" }], [{ n: 2, name: "second" }]]);
      // Both transactions commit: neither is left open, holding its locks and its connection.
      const neverCommitted = new Promise((_, reject) => setTimeout(() => reject(new Error("a transaction was never committed")), 5_000).unref());
      await Promise.race([Promise.all(signed.map((s) => s.committed)), neverCommitted]);
      await eventually(async () => (two.totalCount === two.idleCount ? true : undefined));
      for (const hook of ["hook_x", "hook_y", "hook_z"]) expect(await rotationCouldLock(hook)).toBe(true);
    } finally {
      // A transaction left open keeps its connection: do not wait for it.
      await Promise.race([two.end(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    }
  });
});
