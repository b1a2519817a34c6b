// Isolation for tests that cross services: each run gets its own database and its own stream
// names on the real PostgreSQL and NATS (DATABASE_URL / NATS_URL, or the local servers).
import { randomBytes } from "node:crypto";
import path from "node:path";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import pg from "pg";
import { DEFAULT_DATABASE_URL, DEFAULT_NATS_URL } from "@waybill/platform/config.js";
import { quoteIdent } from "@waybill/platform/db.js";
import { createTopology, type Topology } from "@waybill/platform/nats.js";
import { releaseStreamClaim } from "../../packages/platform/stream-claims.js";

export interface TestEnvironment {
  databaseUrl: string;
  natsUrl: string;
  streamPrefix: string;
  topology: Topology;
  /** Environment variables every service of this run is started with. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

function adminUrl(base: string): string {
  const url = new URL(base);
  url.pathname = "/postgres";
  if (!url.username) url.username = process.env.PGUSER ?? process.env.USER ?? "postgres";
  return url.toString();
}

/** A client of the test PostgreSQL server itself (its postgres database), for tests that only evaluate SQL. */
export async function connectToTestServer(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: adminUrl(process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL) });
  await client.connect();
  return client;
}

/** `databaseUrl` / `natsUrl`: servers of the test's own (see private-servers.ts) instead of the shared ones. */
export async function createTestEnvironment(servers: { databaseUrl?: string; natsUrl?: string } = {}): Promise<TestEnvironment> {
  const suffix = randomBytes(5).toString("hex");
  const base = servers.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const natsUrl = servers.natsUrl ?? process.env.NATS_URL ?? DEFAULT_NATS_URL;
  const dbName = `waybill_test_${suffix}`;
  const admin = new pg.Client({ connectionString: adminUrl(base) });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${quoteIdent(dbName)}`);
  await admin.end();
  const url = new URL(adminUrl(base));
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const streamPrefix = `T${suffix}_`;
  return {
    databaseUrl,
    natsUrl,
    streamPrefix,
    topology: createTopology(streamPrefix),
    env: {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      STREAM_PREFIX: streamPrefix,
      // A full run logs at debug into TEST_LOG_DIR (one file per worker), and the logs are scanned
      // for secrets at its end (log-scan.ts); otherwise nothing is logged unless asked for.
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? (process.env.TEST_LOG_DIR ? "debug" : "silent"),
      ...(process.env.TEST_LOG_DIR ? { LOG_FILE: path.join(process.env.TEST_LOG_DIR, `worker-${process.pid}.log`) } : {}),
      // Every answer of the edge, validated against the OpenAPI document when the run ends (contract-check.ts).
      ...(process.env.TEST_LOG_DIR ? { ANSWER_LOG_FILE: path.join(process.env.TEST_LOG_DIR, `answers-${process.pid}.jsonl`) } : {}),
      BIND_HOST: "127.0.0.1",
      // Free ports unless a test names its own: a service started without them took the defaults
      // (the edge's ops port 9100), and two runs on one machine collided there (EADDRINUSE).
      GRPC_PORT: "0",
      OPS_PORT: "0",
    },
    async cleanup() {
      const nc = await connect({ servers: natsUrl });
      try {
        const jsm = await jetstreamManager(nc);
        // A key-value bucket's stream is named KV_<bucket>, and the run's buckets start with its prefix.
        const ours = (name: string) => name.startsWith(streamPrefix) || name.startsWith(`KV_${streamPrefix}`);
        for await (const name of jsm.streams.names()) if (ours(name)) await jsm.streams.delete(name);
        // The run's installation claimed its prefix (stream-claims.ts): forget it with the streams.
        await releaseStreamClaim({ js: jetstream(nc) }, streamPrefix);
      } finally {
        await nc.close();
      }
      const client = new pg.Client({ connectionString: adminUrl(base) });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(dbName)} WITH (FORCE)`);
      await client.end();
    },
  };
}
