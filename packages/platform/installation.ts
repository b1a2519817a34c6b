// Which installation a database belongs to: one id, created by the first service that starts on
// an empty database and read by every other (replicas, and services split over separate schemas
// and roles of that database). It tells whose streams a NATS stream prefix holds (stream-claims.ts).
import { newUlid } from "./ids.js";
import type { Pool } from "./db.js";

/** Shared by the services of one database; readable by every role, written once. */
export const INSTALLATION_SCHEMA = "waybill_installation";
const TABLE = `${INSTALLATION_SCHEMA}.installation`;

/** This database's installation id, created on first use. */
export async function ensureInstallationId(pool: Pool): Promise<string> {
  const existing = await readInstallationId(pool);
  if (existing) return existing;
  const client = await pool.connect();
  // Services of one database starting together create it once; the others wait and read it. The
  // lock is taken before the transaction begins, so that the transaction sees what the holder
  // committed (a transaction already open when the lock came would look up stale catalogs).
  await client.query("SELECT pg_advisory_lock(hashtext('waybill:installation'))");
  try {
    await client.query("BEGIN");
    const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [TABLE]);
    if (!rows[0].exists) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${INSTALLATION_SCHEMA}`);
      // One row at most (the CHECK on a unique constant column).
      await client.query(
        `CREATE TABLE ${TABLE} (id text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), one boolean NOT NULL DEFAULT true UNIQUE CHECK (one))`,
      );
      // Each service may have a role of its own with no rights on other schemas: all may read.
      await client.query(`GRANT USAGE ON SCHEMA ${INSTALLATION_SCHEMA} TO PUBLIC`);
      await client.query(`GRANT SELECT ON ${TABLE} TO PUBLIC`);
      await client.query(`INSERT INTO ${TABLE} (id) VALUES ($1)`, [`inst_${newUlid().toLowerCase()}`]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext('waybill:installation'))").catch(() => {});
    client.release();
  }
  const created = await readInstallationId(pool);
  if (!created) throw new Error(`${TABLE} holds no installation id`);
  return created;
}

/** This database's installation id, or undefined before any service started on it. */
export async function readInstallationId(pool: Pick<Pool, "query">): Promise<string | undefined> {
  const { rows } = await pool.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [TABLE]);
  if (!rows[0].exists) return undefined;
  const installation = await pool.query<{ id: string }>(`SELECT id FROM ${TABLE}`);
  return installation.rows[0]?.id;
}
