// Plain SQL migrations per service schema, applied at start under an advisory lock so that
// replicas starting together do not race.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { quoteIdent, type Pool, type Queryable } from "./db.js";

/** Migrations every service schema gets: the outbox and the consumer inbox. */
export const PLATFORM_MIGRATIONS_DIR = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * Applies `NNN_name.sql` files from `dirs` in file-name order, each in its own transaction,
 * recording them in `<schema>.schema_migrations`. Returns the names applied by this call. A
 * schema that a service had under an earlier name (`formerSchemaNames`) is renamed first, data and
 * migration history included.
 */
export async function migrate(pool: Pool, schema: string, dirs: string[], options: { formerSchemaNames?: string[] } = {}): Promise<string[]> {
  const sources = new Map<string, string>();
  for (const dir of dirs) {
    for (const file of await readdir(dir)) if (file.endsWith(".sql")) sources.set(file, path.join(dir, file));
  }
  const files = [...sources.keys()].sort();
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    // Migrations may run long, and waiting for another replica's migrations too.
    await client.query("SET statement_timeout = 0");
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [`waybill:migrate:${schema}`]);
    await adoptFormerSchema(client, schema, options.formerSchemaNames ?? []);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set((await client.query<{ name: string }>(`SELECT name FROM ${quoteIdent(schema)}.schema_migrations`)).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(sources.get(file)!, "utf8");
      await client.query("BEGIN");
      try {
        await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
        await client.query(sql);
        await client.query(`INSERT INTO ${quoteIdent(schema)}.schema_migrations (name) VALUES ($1)`, [file]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw new Error(`migration ${schema}/${file} failed: ${(error as Error).message}`);
      }
      applied.push(file);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext($1))", [`waybill:migrate:${schema}`]).catch(() => {});
    await client.query("RESET statement_timeout").catch(() => {});
    client.release();
  }
  return applied;
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
