import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MigrationFileError, NO_TRANSACTION_MARKER, readMigrationFiles, splitStatements } from "./migration-files.js";

const folders: string[] = [];
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "waybill-migration-files-"));
  for (const [name, sql] of Object.entries(files)) writeFileSync(path.join(dir, name), sql);
  folders.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("migration files", () => {
  it("come in name order across folders, each with its checksum and whether it runs outside a transaction", async () => {
    const platform = folder({ "000_base.sql": "CREATE TABLE a (id int);" });
    const service = folder({
      "002_index.sql": `-- Builds an index without blocking writes.\n${NO_TRANSACTION_MARKER}\nCREATE INDEX CONCURRENTLY a_id ON a (id);\n`,
      "001_more.sql": "ALTER TABLE a ADD COLUMN b text; -- waybill:no-transaction (only counts before the first statement)\n",
      "notes.txt": "ignored",
    });
    const files = await readMigrationFiles([platform, service]);
    expect(files.map((f) => [f.name, f.noTransaction])).toEqual([
      ["000_base.sql", false],
      ["001_more.sql", false],
      ["002_index.sql", true],
    ]);
    expect(files[0].checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuse a name that exists in two folders, naming both", async () => {
    const platform = folder({ "001_same.sql": "SELECT 1;" });
    const service = folder({ "001_same.sql": "SELECT 2;" });
    const reading = readMigrationFiles([platform, service]);
    await expect(reading).rejects.toBeInstanceOf(MigrationFileError);
    await expect(reading).rejects.toThrow(`migration 001_same.sql exists twice, in ${platform} and in ${service}`);
  });

  it("split into statements at semicolons outside quotes, comments and dollar-quoted bodies", () => {
    const sql = `-- a comment; not a statement
DROP INDEX CONCURRENTLY IF EXISTS x;
CREATE FUNCTION f() RETURNS text AS $body$ SELECT 'a;b'; $body$ LANGUAGE sql;
/* block; comment */ COMMENT ON TABLE t IS 'it''s; fine';
CREATE INDEX CONCURRENTLY "odd;name" ON t (id)
`;
    expect(splitStatements(sql).map((s) => s.trim())).toEqual([
      "-- a comment; not a statement\nDROP INDEX CONCURRENTLY IF EXISTS x",
      "CREATE FUNCTION f() RETURNS text AS $body$ SELECT 'a;b'; $body$ LANGUAGE sql",
      "/* block; comment */ COMMENT ON TABLE t IS 'it''s; fine'",
      'CREATE INDEX CONCURRENTLY "odd;name" ON t (id)',
    ]);
  });
});
