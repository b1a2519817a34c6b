// A service's migration files as the migrator reads them: `NNN_name.sql` from several folders
// (the platform's and the service's own), each with its checksum and how it must run.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * A file whose first lines carry this comment runs outside a transaction, one statement at a
 * time: what PostgreSQL refuses inside one, such as CREATE INDEX CONCURRENTLY, which builds an
 * index without blocking writes to its table.
 */
export const NO_TRANSACTION_MARKER = "-- waybill:no-transaction";

export interface MigrationFile {
  /** The file name, which is also its name in schema_migrations. */
  name: string;
  path: string;
  sql: string;
  /** SHA-256 of the file's text, recorded when it is applied. */
  checksum: string;
  /** Runs statement by statement outside a transaction (NO_TRANSACTION_MARKER). */
  noTransaction: boolean;
}

export class MigrationFileError extends Error {}

/**
 * The `.sql` files of `dirs` in name order. The same name in two folders is an error: one of them
 * would silently never run.
 */
export async function readMigrationFiles(dirs: readonly string[]): Promise<MigrationFile[]> {
  const byName = new Map<string, MigrationFile>();
  for (const dir of dirs) {
    for (const name of await readdir(dir)) {
      if (!name.endsWith(".sql")) continue;
      const file = path.join(dir, name);
      const other = byName.get(name);
      if (other) throw new MigrationFileError(`migration ${name} exists twice, in ${path.dirname(other.path)} and in ${dir}: rename one of them`);
      const sql = await readFile(file, "utf8");
      byName.set(name, { name, path: file, sql, checksum: migrationChecksum(sql), noTransaction: hasNoTransactionMarker(sql) });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function migrationChecksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/** The marker counts among the comments that open the file, before its first statement. */
function hasNoTransactionMarker(sql: string): boolean {
  for (const line of sql.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (!trimmed.startsWith("--")) return false;
    if (trimmed === NO_TRANSACTION_MARKER) return true;
  }
  return false;
}

/**
 * Splits SQL into statements at semicolons outside quotes, comments and dollar-quoted bodies, so a
 * no-transaction file runs one statement per round trip (several in one would form an implicit
 * transaction).
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === "'" || c === '"') {
      const end = sql.indexOf(c, i + 1);
      i = end === -1 ? sql.length : end + 1;
    } else if (c === "$") {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i))?.[0];
      if (tag) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end === -1 ? sql.length : end + tag.length;
      } else i++;
    } else if (c === ";") {
      statements.push(sql.slice(start, i));
      i++;
      start = i;
    } else i++;
  }
  statements.push(sql.slice(start));
  return statements.filter((statement) => statement.replace(/--[^\n]*/g, "").trim() !== "");
}
