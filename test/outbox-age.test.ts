// waybill_outbox_oldest_age_seconds (the WaybillOutboxBacklog alert): how long the oldest committed
// event has waited in a service's outbox, 0 once it is empty, against a real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { createPool, ensureDatabase, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { OUTBOX_OLDEST_AGE_METRIC, startOutboxAgeGauge } from "../packages/platform/outbox-age.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";

let env: TestEnvironment;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  await ensureDatabase(env.databaseUrl);
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "outbox_age_test", max: 2, applicationName: "waybill-test" });
  await migrate(pool, "outbox_age_test", [PLATFORM_MIGRATIONS_DIR]);
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

const age = async (registry: Registry) => (await registry.getSingleMetric(OUTBOX_OLDEST_AGE_METRIC)!.get()).values[0]?.value;

describe("outbox age gauge", () => {
  it("reports the oldest row's wait, and 0 when the outbox is empty", async () => {
    const registry = new Registry();
    const stop = startOutboxAgeGauge(pool, registry, 50);
    try {
      await eventually(async () => ((await age(registry)) === 0 ? true : undefined));
      await pool.query(
        "INSERT INTO outbox (id, tenant_id, kind, subject, event, created_at) VALUES ('evt_stuck', 'ten_1', 'order.created', 'events.x', '{}', now() - interval '5 minutes')",
      );
      const stuck = await eventually(async () => {
        const value = await age(registry);
        return value !== undefined && value > 0 ? value : undefined;
      });
      expect(stuck).toBeGreaterThanOrEqual(300);
      expect(stuck).toBeLessThan(330);
      await pool.query("DELETE FROM outbox");
      await eventually(async () => ((await age(registry)) === 0 ? true : undefined));
    } finally {
      stop();
    }
  });
});
