// PostgreSQL: one pool per service, one schema per service, plain SQL migrations applied at
// start under an advisory lock so that replicas starting together do not race.
import type { EventEmitter } from "node:events";
import { readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { DEFAULT_DB_POOL_MAX } from "./config.js";
import type { Logger } from "./logger.js";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, "query">;

/** SQLSTATE of a unique constraint violation (a duplicate key). */
export const UNIQUE_VIOLATION = "23505";

// numeric and int8 stay strings (exact); timestamps become Date.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export interface PoolOptions {
  databaseUrl: string;
  schema: string;
  /** Connections at most; services pass their validated DB_POOL_MAX. */
  max?: number;
  applicationName: string;
  /** Where lost connections are reported (they are replaced, never fatal). */
  logger?: Logger;
}

/** Waiting for a connection (new, or a free one of the pool) fails after this long: a 503, not a hang. */
export const DB_CONNECTION_TIMEOUT_MS = 5_000;
/** A statement running longer is cancelled by the server (migrations lift it). */
export const DB_STATEMENT_TIMEOUT_MS = 60_000;
/** A transaction left open this long (a bug, a stuck caller) is ended by the server, releasing its locks. */
export const DB_IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** Idle connections are closed after this long, so a failover's dead ones do not linger. */
export const DB_IDLE_TIMEOUT_MS = 30_000;
/** TCP keepalive, so a connection to a server that vanished (failover, cut network) is noticed. */
export const DB_KEEPALIVE_DELAY_MS = 10_000;

/** pg falls back to $USER for a URL without a user; that is unset in some shells and CI. */
function withDefaultUser(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  if (!url.username) url.username = process.env.PGUSER ?? process.env.USER ?? os.userInfo().username;
  return url.toString();
}

export function createPool({ databaseUrl, schema, max = DEFAULT_DB_POOL_MAX, applicationName, logger }: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: withDefaultUser(databaseUrl),
    max,
    application_name: applicationName,
    options: `-c search_path=${schema}`,
    connectionTimeoutMillis: DB_CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: DB_IDLE_TIMEOUT_MS,
    statement_timeout: DB_STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: DB_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: DB_KEEPALIVE_DELAY_MS,
  });
  const lost = (error: Error) => logger?.warn({ err: error.message, code: (error as { code?: string }).code }, "database connection lost; it will be replaced");
  // The pool's 'error' covers only idle clients. A client checked out (a transaction, a lock
  // holder) emits 'error' on itself when the server goes away (restart, failover: 57P01), and an
  // 'error' event nobody listens to kills the process. So every client gets a listener of its
  // own for its whole life; the query in flight fails on its own, and the pool drops the broken
  // client when it is released.
  pool.on("connect", (client) => client.on("error", lost));
  pool.on("error", lost);
  return pool;
}

/** Creates the database named in `databaseUrl` when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!name) return;
  url.pathname = "/postgres";
  const client = new pg.Client({ connectionString: withDefaultUser(url.toString()), connectionTimeoutMillis: DB_CONNECTION_TIMEOUT_MS });
  client.on("error", () => {}); // its query in flight fails with the same error
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (rowCount === 0) {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((error: { code?: string }) => {
        if (error.code !== "42P04") throw error; // created by a concurrent starter
      });
    }
  } finally {
    await client.end();
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const OUTBOX_COMMITTED_EVENT = "waybill:outbox-committed";
/** Connections whose open transaction wrote outbox rows (see markOutboxWritten). */
const wroteOutbox = new WeakSet<object>();

/**
 * Notes that the transaction open on `db` wrote outbox rows, so that its commit wakes the outbox
 * relay. Only such commits do: waking it on every commit made it drain, empty, after each
 * read or record of a busy service, taking connections the work needed.
 */
export function markOutboxWritten(db: Queryable): void {
  wroteOutbox.add(db);
}

/** Tells the relay that outbox rows committed outside withTransaction (a single-statement write). */
export function notifyOutboxCommitted(pool: Pool): void {
  (pool as unknown as EventEmitter).emit(OUTBOX_COMMITTED_EVENT);
}

/** Calls `listener` after every commit on `pool` that wrote outbox rows; returns the unsubscribe. */
export function onOutboxCommitted(pool: Pool, listener: () => void): () => void {
  const emitter = pool as unknown as EventEmitter;
  emitter.on(OUTBOX_COMMITTED_EVENT, listener);
  return () => emitter.off(OUTBOX_COMMITTED_EVENT, listener);
}

export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    if (wroteOutbox.has(client)) notifyOutboxCommitted(pool);
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    wroteOutbox.delete(client);
    client.release();
  }
}

/** Migrations every service schema gets: the outbox and the consumer inbox. */
export const PLATFORM_MIGRATIONS_DIR = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * Applies `NNN_name.sql` files from `dirs` in file-name order, each in its own transaction,
 * recording them in `<schema>.schema_migrations`. Returns the names applied by this call.
 */
export async function migrate(pool: Pool, schema: string, dirs: string[]): Promise<string[]> {
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

/** Runs `fn` while holding a session advisory lock, so that only one replica does it at a time. */
export async function withAdvisoryLock<T>(pool: Pool, key: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [key]);
    try {
      return await fn(client);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [key]);
    }
  } finally {
    client.release();
  }
}
