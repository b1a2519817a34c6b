// The MQTT gateway's schema was called "devices" before the gateway had one name everywhere. A
// deployment that still has it must keep its device registry and migration history when the
// gateway starts under the new name: the schema is renamed, not recreated empty.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

describe("a service's former schema name", () => {
  let env: TestEnvironment;
  let pool: Pool;

  beforeAll(async () => {
    env = await createTestEnvironment();
    pool = createPool({ databaseUrl: env.databaseUrl, schema: "public", applicationName: "schema-rename-test" });
  });
  afterAll(async () => {
    await pool?.end();
    await env?.cleanup();
  });

  it("is renamed with its rows and migration history, and only once", async () => {
    await migrate(pool, "old_name", [PLATFORM_MIGRATIONS_DIR]);
    await pool.query("CREATE TABLE old_name.registry (id text PRIMARY KEY)");
    await pool.query("INSERT INTO old_name.registry VALUES ('dev-kept')");

    const applied = await migrate(pool, "new_name", [PLATFORM_MIGRATIONS_DIR], { formerSchemaNames: ["old_name"] });

    expect(applied).toEqual([]); // the history came along, so nothing ran twice
    expect((await pool.query("SELECT id FROM new_name.registry")).rows).toEqual([{ id: "dev-kept" }]);
    const schemas = (await pool.query("SELECT nspname FROM pg_namespace WHERE nspname IN ('old_name', 'new_name')")).rows.map((r) => r.nspname);
    expect(schemas).toEqual(["new_name"]);

    // A later start with both names configured leaves the current schema alone.
    await pool.query("CREATE SCHEMA old_name");
    await migrate(pool, "new_name", [PLATFORM_MIGRATIONS_DIR], { formerSchemaNames: ["old_name"] });
    expect((await pool.query("SELECT id FROM new_name.registry")).rows).toEqual([{ id: "dev-kept" }]);
  });
});
