// PostgreSQL connections: one pool per service, its search_path set to the service's schema,
// server-side timeouts so that a stuck caller cannot hold locks for ever.
import os from "node:os";
import pg from "pg";
import { DEFAULT_DB_POOL_MAX } from "./config.js";
import type { Logger } from "./logger.js";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, "query">;

/**
 * A string as an SQL literal, for statements sent without parameters (the simple protocol); the
 * same text as pg's escapeLiteral. That one appends the literal a character at a time, leaving
 * garbage in proportion to its length, a large part of what the dispatcher (whose arguments are
 * kilobytes long) allocates under load; two native replacements allocate the result and little else.
 */
export function escapeLiteral(value: string): string {
  const quoted = `'${value.replaceAll("'", "''").replaceAll("\\", "\\\\")}'`;
  return value.includes("\\") ? ` E${quoted}` : quoted;
}

/** The tag of `textLiteral`'s dollar quoting. */
const DOLLAR_TAG = "$waybill$";

/**
 * A long string (a JSON argument of kilobytes) as an SQL literal for the simple protocol: dollar
 * quoted, so neither this process nor PostgreSQL's parser handles it a character at a time for
 * escapes (JSON text holding JSON text is full of backslashes, which an escaped literal doubles).
 * A string that holds the tag, or ends as the tag begins (its last "$waybill" and the closing
 * tag's "$" would close the quote early), falls back to escapeLiteral.
 */
export function textLiteral(value: string): string {
  const quotable = !value.includes(DOLLAR_TAG) && !value.endsWith(DOLLAR_TAG.slice(0, -1));
  return quotable ? `${DOLLAR_TAG}${value}${DOLLAR_TAG}` : escapeLiteral(value);
}

/**
 * SQL that reads a timestamptz as the text JavaScript's toISOString gives (UTC, milliseconds,
 * "Z"; NULL stays NULL), for reads that answer it as it is instead of parsing and formatting a Date
 * per row.
 */
export function isoTimestampSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

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
    // No JIT: every statement here is short, and PostgreSQL compiles a plan whose estimated cost
    // passes jit_above_cost on every execution, and compiling takes far longer than running such a
    // statement.
    options: `-c search_path=${schema} -c jit=off`,
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
