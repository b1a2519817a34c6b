// Hook changes heard on a real PostgreSQL (migration 011's trigger, hook-changes.ts): the mark
// moves when a hook's status, url or secret changes or the hook is deleted, not when only its
// counters do; while the listening connection is lost nothing read may be trusted (no mark), and
// once listening again the mark differs from every earlier one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { createLogger } from "@waybill/platform/logger.js";
import { migrate } from "@waybill/platform/migrations.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { startHookChanges, type HookChanges } from "../services/dispatcher/hook-changes.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";

let env: TestEnvironment;
let pool: Pool;
let changes: HookChanges;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 2, applicationName: "hook-changes-test" });
  await migrate(pool, DISPATCHER_SCHEMA, [DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
  changes = await startHookChanges({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, logger: createLogger("hook-changes-test", "silent") });
  await pool.query(
    `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since)
     VALUES ('hook_a', 'ten_a', 'a', 'http://127.0.0.1/a', 'order.created', 'active', 'none', 'sealed-1', now(), now()),
            ('hook_b', 'ten_a', 'b', 'http://127.0.0.1/b', 'order.created', 'active', 'none', 'sealed-1', now(), now())`,
  );
});
afterAll(async () => {
  await changes?.stop();
  await pool?.end();
  await env?.cleanup();
});

/** Resolves with the new mark once it differs from `before` (a notification arrives a moment after the commit). */
const movedFrom = (before: number | undefined) => eventually(async () => (changes.mark() !== before ? changes.mark() : undefined));

describe("hook changes", () => {
  it("moves the mark on a pause, a new url, a rotated secret and a deletion", async () => {
    for (const change of [
      "UPDATE hooks SET status = 'paused' WHERE id = 'hook_a'",
      "UPDATE hooks SET url = 'http://127.0.0.1/elsewhere' WHERE id = 'hook_a'",
      "UPDATE hooks SET secret_sealed = 'sealed-2' WHERE id = 'hook_a'",
      "DELETE FROM hooks WHERE id = 'hook_a'",
    ]) {
      const before = changes.mark();
      expect(before).toBeDefined();
      await pool.query(change);
      expect(await movedFrom(before)).toBeDefined();
    }
  });

  it("keeps the mark when only a hook's counters are written", async () => {
    const before = changes.mark();
    await pool.query("UPDATE hooks SET success_count = success_count + 1, last_run_at = now() WHERE id = 'hook_b'");
    await pool.query("UPDATE hooks SET status = 'active' WHERE id = 'hook_b'"); // the same status: no change
    // A change made afterwards is heard, so by then the writes before it would have been too.
    await pool.query("SELECT pg_notify('dispatcher_hook_changed', 'probe')");
    const after = await movedFrom(before);
    expect(after).toBe(before! + 1);
  });

  it("has no mark while its connection is lost, and a new one once listening again", async () => {
    const before = changes.mark();
    await pool.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'waybill-dispatcher-hook-changes'");
    await eventually(async () => (changes.mark() === undefined ? true : undefined));
    const again = await eventually(async () => changes.mark());
    expect(again).not.toBe(before);
    await pool.query("UPDATE hooks SET url = 'http://127.0.0.1/b2' WHERE id = 'hook_b'");
    expect(await movedFrom(again)).toBeDefined();
  });
});
