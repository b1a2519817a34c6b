// The auto-disable pauses a failing hook and then moves the hooks' mark (hook-changes.ts), as a
// pause asked for over the API does: what the intake signed for that hook before the pause must
// not be sent on the strength of an older mark while the pause's notification is on its way.
// Real PostgreSQL with the dispatcher's migrations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { createLogger } from "@waybill/platform/logger.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { newId } from "@waybill/platform/ids.js";
import { startAutoDisable } from "../services/dispatcher/auto-disable.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";

const logger = createLogger("auto-disable-test", process.env.TEST_LOG_LEVEL ?? "silent");
let env: TestEnvironment;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 2, applicationName: "auto-disable-test" });
  await migrate(pool, DISPATCHER_SCHEMA, [PLATFORM_MIGRATIONS_DIR, DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

async function insertHook(failingForMs: number | null): Promise<string> {
  const id = newId("hook");
  await pool.query(
    `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since, failing_since)
     VALUES ($1, 'ten_autodisable', 'test', 'http://127.0.0.1/', 'order.created', 'active', 'none', 'sealed', now(), now() - interval '1 hour',
             CASE WHEN $2::double precision IS NULL THEN NULL ELSE now() - make_interval(secs => $2::double precision / 1000) END)`,
    [id, failingForMs],
  );
  return id;
}

const statusOf = async (id: string) => (await pool.query<{ status: string }>("SELECT status FROM hooks WHERE id = $1", [id])).rows[0].status;

describe("auto-disable and the hooks' mark", () => {
  it("moves the mark once a pause has committed, and not while no hook was paused", async () => {
    const healthy = await insertHook(null);
    /** The status each hook had when the mark moved (read then; while the pause's transaction were open, on the pool's other connection, it would not show). */
    const seenAtChange: { failing: string; healthy: string }[] = [];
    /** One read per call of `changed`, started at the call. */
    const pending: Promise<void>[] = [];
    let failing = "";
    const changed = () => {
      pending.push(Promise.all([statusOf(failing), statusOf(healthy)]).then(([f, h]) => void seenAtChange.push({ failing: f, healthy: h })));
    };
    // The check runs every 250 ms (a quarter of 1 s, the shortest interval).
    const stop = startAutoDisable({ pool, topology: env.topology, logger, disableAfterMs: 1_000, hookChanges: { changed } });
    try {
      // Several checks with nothing to pause: the mark stays.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(pending.length).toBe(0);

      failing = await insertHook(60_000);
      await eventually(async () => ((await statusOf(failing)) === "paused" ? true : undefined), 10_000);
      await eventually(async () => (pending.length > 0 ? true : undefined), 5_000);
      await Promise.all(pending);
      expect(seenAtChange[0]).toEqual({ failing: "paused", healthy: "active" });

      // The pause is done; later checks find nothing and leave the mark alone.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(pending.length).toBe(1);
    } finally {
      await stop();
    }
  });
});
