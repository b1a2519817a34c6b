// Migrations against the real PostgreSQL: checksums recorded and checked (a changed applied file
// stops everything with a message saying what to do), lock_timeout (a migration waiting behind a
// long transaction gives up, is tried again, and says why when it cannot), statement_timeout,
// files that run outside a transaction (CREATE INDEX CONCURRENTLY), and the repository's own
// migrations following the rules.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { NO_TRANSACTION_MARKER, readMigrationFiles } from "../packages/platform/migration-files.js";
import { MigrationError, migrate, pendingMigrations } from "@waybill/platform/migrations.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { ROOT } from "./support/processes.js";

let env: TestEnvironment;
let pool: Pool;
const folders: string[] = [];

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "public", applicationName: "migrations-test", max: 4 });
});

afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "waybill-migrations-"));
  for (const [name, sql] of Object.entries(files)) writeFileSync(path.join(dir, name), sql);
  folders.push(dir);
  return dir;
}

describe("migration checksums", () => {
  it("are recorded, and an applied file changed since fails before anything runs, saying what to do", async () => {
    const dir = folder({ "001_things.sql": "CREATE TABLE things (id int);" });
    expect(await migrate(pool, "sums", [dir])).toEqual(["001_things.sql"]);
    const { rows } = await pool.query("SELECT name, checksum FROM sums.schema_migrations");
    expect(rows).toEqual([{ name: "001_things.sql", checksum: expect.stringMatching(/^[0-9a-f]{64}$/) }]);

    writeFileSync(path.join(dir, "001_things.sql"), "CREATE TABLE things (id bigint);");
    writeFileSync(path.join(dir, "002_more.sql"), "CREATE TABLE more (id int);");
    const changed = migrate(pool, "sums", [dir]);
    await expect(changed).rejects.toBeInstanceOf(MigrationError);
    await expect(changed).rejects.toThrow(
      /applied migration changed since it was applied to schema sums: .*001_things\.sql \(recorded [0-9a-f]{12}, now [0-9a-f]{12}\)/,
    );
    await expect(changed).rejects.toThrow("restore the file as it was and put the change in a new migration");
    // Nothing after it ran.
    expect((await pool.query("SELECT to_regclass('sums.more') AS t")).rows[0].t).toBeNull();
    await expect(pendingMigrations(pool, "sums", [dir])).rejects.toBeInstanceOf(MigrationError);
  });

  it("are filled in for migrations applied before checksums were kept", async () => {
    const dir = folder({ "001_old.sql": "CREATE TABLE old (id int);" });
    await pool.query("CREATE SCHEMA legacy; CREATE TABLE legacy.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
    await pool.query("CREATE TABLE legacy.old (id int); INSERT INTO legacy.schema_migrations (name) VALUES ('001_old.sql')");
    expect(await migrate(pool, "legacy", [dir])).toEqual([]);
    expect((await pool.query("SELECT checksum FROM legacy.schema_migrations")).rows[0].checksum).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("migration timeouts", () => {
  it("a statement waiting for a lock gives up after lock_timeout, is tried again, and applies once the lock is free", async () => {
    await migrate(pool, "locks", [folder({ "001_table.sql": "CREATE TABLE busy (id int);" })]);
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN; LOCK TABLE locks.busy IN ACCESS SHARE MODE");
      const dir = folder({ "001_table.sql": "CREATE TABLE busy (id int);", "002_alter.sql": "ALTER TABLE busy ADD COLUMN note text;" });
      const started = Date.now();
      const migrating = migrate(pool, "locks", [dir], { lockTimeoutMs: 200 });
      // While the migration waits for its lock, reads of the table are not queued behind it for longer than lock_timeout.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const read = Date.now();
      await pool.query("SELECT count(*) FROM locks.busy");
      expect(Date.now() - read).toBeLessThan(1_500);
      await new Promise((resolve) => setTimeout(resolve, 700));
      await holder.query("COMMIT");
      expect(await migrating).toEqual(["002_alter.sql"]);
      expect(Date.now() - started).toBeGreaterThan(1_000); // it waited for its second attempt
    } finally {
      holder.release();
    }
  });

  it("a lock never granted fails the migration with the reason and the setting", async () => {
    const holder = await pool.connect();
    try {
      await holder.query("BEGIN; LOCK TABLE locks.busy IN ACCESS SHARE MODE");
      const dir = folder({
        "001_table.sql": "CREATE TABLE busy (id int);",
        "002_alter.sql": "ALTER TABLE busy ADD COLUMN note text;",
        "003_again.sql": "ALTER TABLE busy ADD COLUMN other text;",
      });
      const migrating = migrate(pool, "locks", [dir], { lockTimeoutMs: 100 });
      await expect(migrating).rejects.toThrow(
        /migration locks\/003_again\.sql failed: canceling statement due to lock timeout \(a lock was not granted within MIGRATION_LOCK_TIMEOUT_MS=100 ms, 3 times/,
      );
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
  });

  it("a statement running longer than statement_timeout fails the migration and records nothing", async () => {
    const dir = folder({ "001_slow.sql": "CREATE TABLE slow (id int); SELECT pg_sleep(3);" });
    await expect(migrate(pool, "slow", [dir], { statementTimeoutMs: 200 })).rejects.toThrow(
      "migration slow/001_slow.sql failed: canceling statement due to statement timeout",
    );
    expect((await pool.query("SELECT count(*)::int AS n FROM slow.schema_migrations")).rows[0].n).toBe(0);
    expect((await pool.query("SELECT to_regclass('slow.slow') AS t")).rows[0].t).toBeNull();
  });
});

describe("files marked to run outside a transaction", () => {
  it("build indexes CONCURRENTLY, which a transaction refuses", async () => {
    const table = folder({
      "001_table.sql": "CREATE TABLE items (id int, sku text); INSERT INTO items SELECT g, 'sku-' || g FROM generate_series(1, 1000) g;",
    });
    await migrate(pool, "concurrent", [table]);
    const inTransaction = folder({
      "001_table.sql": readFileSync(path.join(table, "001_table.sql"), "utf8"),
      "002_index.sql": "CREATE INDEX CONCURRENTLY items_sku ON items (sku);",
    });
    await expect(migrate(pool, "concurrent", [inTransaction])).rejects.toThrow("CREATE INDEX CONCURRENTLY cannot run inside a transaction block");

    const marked = folder({
      "001_table.sql": readFileSync(path.join(table, "001_table.sql"), "utf8"),
      "002_index.sql": `${NO_TRANSACTION_MARKER}\n-- A failed build leaves an invalid index behind: drop it first.\nDROP INDEX CONCURRENTLY IF EXISTS items_sku;\nCREATE INDEX CONCURRENTLY items_sku ON items (sku);\n`,
    });
    expect(await migrate(pool, "concurrent", [marked])).toEqual(["002_index.sql"]);
    const { rows } = await pool.query("SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'items_sku'");
    expect(rows).toEqual([{ indisvalid: true }]);
    expect((await pool.query("SHOW search_path")).rows[0].search_path).not.toContain("concurrent");
  });
});

// Indexes on tables that already hold data are built CONCURRENTLY (in a marked file), so a
// deploy never blocks writes while one builds. Files shipped before the rule stay as they are:
// an applied migration must not change (checksums).
const SHIPPED_BEFORE_THE_RULE = new Set([
  "services/dispatcher/migrations/005_recover.sql",
  "services/dispatcher/migrations/006_auto_disable.sql",
  "services/identity/migrations/002_sessions.sql",
]);

describe("the repository's migrations", () => {
  const folders = [
    "packages/platform/migrations",
    ...readdirSync(path.join(ROOT, "services"))
      .map((service) => `services/${service}/migrations`)
      .filter((dir) => {
        try {
          return readdirSync(path.join(ROOT, dir)).length > 0;
        } catch {
          return false;
        }
      }),
  ];

  it("have no name twice between the platform's folder and any service's", async () => {
    for (const dir of folders.slice(1)) await readMigrationFiles([path.join(ROOT, folders[0]), path.join(ROOT, dir)]);
    expect(folders.length).toBeGreaterThan(4);
  });

  it("build indexes on existing tables CONCURRENTLY, outside a transaction", async () => {
    const offending: string[] = [];
    for (const dir of folders) {
      for (const file of await readMigrationFiles([path.join(ROOT, dir)])) {
        const relative = `${dir}/${file.name}`;
        const created = new Set([...file.sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/gi)].map((m) => m[1].toLowerCase()));
        for (const index of file.sql.matchAll(/CREATE (?:UNIQUE )?INDEX (CONCURRENTLY )?(?:IF NOT EXISTS )?\w+ ON (?:ONLY )?(\w+)/gi)) {
          const [, concurrently, table] = index;
          if (created.has(table.toLowerCase())) continue; // a new, empty table: nothing to wait for
          if (concurrently && file.noTransaction) continue;
          if (!SHIPPED_BEFORE_THE_RULE.has(relative)) offending.push(`${relative}: ${index[0]}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });
});
