// Plain SQL migrations per service schema, applied by the migrate command or at start, under an
// advisory lock so that replicas starting together do not race; bounded by lock_timeout and
// statement_timeout, and checked against the checksums recorded when they were applied.
import { fileURLToPath } from "node:url";
import { DEFAULT_MIGRATION_LOCK_TIMEOUT_MS, DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS } from "./config.js";
import { quoteIdent, type Pool, type Queryable } from "./db.js";
import type { Logger } from "./logger.js";
import { type MigrationFile, readMigrationFiles, splitStatements } from "./migration-files.js";

/** Migrations every service schema gets: the outbox and the consumer inbox. */
export const PLATFORM_MIGRATIONS_DIR = fileURLToPath(new URL("./migrations", import.meta.url));

/** Attempts of a migration whose statements ran into lock_timeout. */
export const MIGRATION_LOCK_ATTEMPTS = 3;
const LOCK_NOT_AVAILABLE = "55P03";

export interface MigrateOptions {
  /** Names this schema had before; an existing one is renamed to `schema` first. */
  formerSchemaNames?: string[];
  /**
   * lock_timeout of each migration statement: a statement that waits longer for a lock (an ALTER
   * TABLE behind a long transaction) fails instead of stalling every query queued behind it.
   */
  lockTimeoutMs?: number;
  /** statement_timeout of each migration statement (0: none). */
  statementTimeoutMs?: number;
  logger?: Pick<Logger, "info" | "warn">;
}

/** An applied migration whose file changed since, or a file that cannot be applied as it is. */
export class MigrationError extends Error {}

/**
 * Applies `NNN_name.sql` files from `dirs` in file-name order, each in its own transaction (or
 * statement by statement, for a file marked NO_TRANSACTION_MARKER), recording each with its
 * checksum in `<schema>.schema_migrations`. An applied file whose text changed since fails the
 * call before anything runs. Returns the names applied by this call.
 */
export async function migrate(pool: Pool, schema: string, dirs: string[], options: MigrateOptions = {}): Promise<string[]> {
  const files = await readMigrationFiles(dirs);
  const client = await pool.connect();
  const applied: string[] = [];
  const lockKey = `waybill:migrate:${schema}`;
  try {
    // Waiting for another replica's migrations takes as long as they take.
    await client.query("SET statement_timeout = 0");
    await client.query("SET lock_timeout = 0");
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [lockKey]);
    await adoptFormerSchema(client, schema, options.formerSchemaNames ?? []);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await ensureHistoryTable(client, schema);
    const pending = await pendingFiles(client, schema, files);
    await client.query(`SET statement_timeout = ${Math.max(0, Math.trunc(options.statementTimeoutMs ?? DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS))}`);
    for (const file of pending) {
      for (let attempt = 1; ; attempt++) {
        try {
          await applyFile(client, schema, file, options.lockTimeoutMs ?? DEFAULT_MIGRATION_LOCK_TIMEOUT_MS);
          break;
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code === LOCK_NOT_AVAILABLE && attempt < MIGRATION_LOCK_ATTEMPTS) {
            options.logger?.warn({ schema, migration: file.name, attempt }, "migration waited too long for a lock (MIGRATION_LOCK_TIMEOUT_MS); trying again");
            await new Promise((resolve) => setTimeout(resolve, 1_000 * attempt));
            continue;
          }
          const hint =
            code === LOCK_NOT_AVAILABLE
              ? ` (a lock was not granted within MIGRATION_LOCK_TIMEOUT_MS=${options.lockTimeoutMs ?? DEFAULT_MIGRATION_LOCK_TIMEOUT_MS} ms, ${MIGRATION_LOCK_ATTEMPTS} times: a long transaction holds the table; run migrate again when it ended)`
              : "";
          throw new MigrationError(`migration ${schema}/${file.name} failed: ${(error as Error).message}${hint}`, { cause: error });
        }
      }
      options.logger?.info({ schema, migration: file.name }, "migration applied");
      applied.push(file.name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lockKey]).catch(() => {});
    await client.query("RESET statement_timeout; RESET lock_timeout; RESET search_path").catch(() => {});
    client.release();
  }
  return applied;
}

/**
 * The migrations of `dirs` not applied to `schema` yet (all of them when the schema has no
 * history). Checks the applied ones' checksums like migrate does.
 */
export async function pendingMigrations(pool: Pool, schema: string, dirs: string[]): Promise<string[]> {
  const files = await readMigrationFiles(dirs);
  const { rows } = await pool.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [`${quoteIdent(schema)}.schema_migrations`]);
  if (!rows[0].exists) return files.map((file) => file.name);
  const client = await pool.connect();
  try {
    return (await pendingFiles(client, schema, files, { adopt: false })).map((file) => file.name);
  } finally {
    client.release();
  }
}

async function ensureHistoryTable(client: Queryable, schema: string): Promise<void> {
  const table = `${quoteIdent(schema)}.schema_migrations`;
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  // Recorded since checksums are checked; rows from before have none until the next start fills it in.
  await client.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS checksum text`);
}

/**
 * The files not applied yet. Fails when an applied file's text changed; an applied row without a
 * checksum (applied before checksums were kept) takes the file's as it is now.
 */
async function pendingFiles(client: Queryable, schema: string, files: MigrationFile[], options: { adopt?: boolean } = {}): Promise<MigrationFile[]> {
  const table = `${quoteIdent(schema)}.schema_migrations`;
  const hasChecksums = options.adopt !== false || (await hasChecksumColumn(client, schema));
  const { rows } = await client.query<{ name: string; checksum: string | null }>(
    `SELECT name, ${hasChecksums ? "checksum" : "NULL::text AS checksum"} FROM ${table}`,
  );
  const recorded = new Map(rows.map((row) => [row.name, row.checksum]));
  const changed = files.filter((file) => {
    const checksum = recorded.get(file.name);
    return typeof checksum === "string" && checksum !== file.checksum;
  });
  if (changed.length > 0) {
    throw new MigrationError(
      `applied migration${changed.length > 1 ? "s" : ""} changed since ${changed.length > 1 ? "they were" : "it was"} applied to schema ${schema}: ${changed
        .map((file) => `${file.path} (recorded ${recorded.get(file.name)!.slice(0, 12)}, now ${file.checksum.slice(0, 12)})`)
        .join(
          ", ",
        )}. An applied migration never runs again, so the change would never reach this database: restore the file as it was and put the change in a new migration.`,
    );
  }
  if (options.adopt !== false) {
    const unrecorded = files.filter((file) => recorded.has(file.name) && recorded.get(file.name) === null);
    if (unrecorded.length > 0) {
      await client.query(
        `UPDATE ${table} t SET checksum = f.checksum FROM jsonb_to_recordset($1::jsonb) AS f(name text, checksum text) WHERE t.name = f.name AND t.checksum IS NULL`,
        [JSON.stringify(unrecorded.map((file) => ({ name: file.name, checksum: file.checksum })))],
      );
    }
  }
  return files.filter((file) => !recorded.has(file.name));
}

async function hasChecksumColumn(client: Queryable, schema: string): Promise<boolean> {
  const { rows } = await client.query(
    "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'schema_migrations' AND column_name = 'checksum'",
    [schema],
  );
  return rows.length > 0;
}

async function applyFile(client: Queryable, schema: string, file: MigrationFile, lockTimeoutMs: number): Promise<void> {
  const record = `INSERT INTO ${quoteIdent(schema)}.schema_migrations (name, checksum) VALUES ($1, $2)`;
  if (file.noTransaction) {
    // Statement by statement, each its own transaction. Waits for locks are left unbounded: what
    // runs here (CREATE INDEX CONCURRENTLY) waits for older transactions without blocking others.
    await client.query(`SET search_path TO ${quoteIdent(schema)}`);
    await client.query("SET lock_timeout = 0");
    try {
      for (const statement of splitStatements(file.sql)) await client.query(statement);
      await client.query(record, [file.name, file.checksum]);
    } finally {
      await client.query("RESET search_path").catch(() => {});
    }
    return;
  }
  await client.query("BEGIN");
  try {
    await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    await client.query(`SET LOCAL lock_timeout = ${Math.max(0, Math.trunc(lockTimeoutMs))}`);
    await client.query(file.sql);
    await client.query(record, [file.name, file.checksum]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** Renames the first existing former schema to `schema` when `schema` does not exist yet. */
async function adoptFormerSchema(client: Queryable, schema: string, formerNames: string[]): Promise<void> {
  if (formerNames.length === 0) return;
  const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)", [[schema, ...formerNames]]);
  const present = new Set(rows.map((r) => r.nspname));
  if (present.has(schema)) return;
  const former = formerNames.find((name) => present.has(name));
  if (former) await client.query(`ALTER SCHEMA ${quoteIdent(former)} RENAME TO ${quoteIdent(schema)}`);
}
