// The signing locks on a real PostgreSQL: held shared while an attempt reads and signs, so a
// rotation waits; let go (with their connection) once the transaction's COMMIT has run, which the
// attempt does not wait for; let go at once when the signing fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNING_LOCK_SPACE, withSigningLocks } from "../services/dispatcher/signing-lock.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";

let env: TestEnvironment;
let pool: Pool;
let other: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "public", max: 2, applicationName: "signing-lock-test" });
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

describe("signing locks", () => {
  it("holds each hook's lock while signing and gives it and the connection back after", async () => {
    const heldWhileSigning = await withSigningLocks(pool, ["hook_b", "hook_a", "hook_b"], async (client) => {
      await client.query("SELECT 1");
      return [await rotationCouldLock("hook_a"), await rotationCouldLock("hook_b"), await rotationCouldLock("hook_c")];
    });
    expect(heldWhileSigning).toEqual([false, false, true]);
    await eventually(allIdle);
    expect(await rotationCouldLock("hook_a")).toBe(true);
    expect(await rotationCouldLock("hook_b")).toBe(true);
  });

  it("lets go of the locks and the connection when the signing fails", async () => {
    await expect(
      withSigningLocks(pool, ["hook_a"], async () => {
        throw new Error("secret unavailable");
      }),
    ).rejects.toThrow("secret unavailable");
    await eventually(allIdle);
    expect(await rotationCouldLock("hook_a")).toBe(true);
  });
});
