// When nothing answers at DATABASE_URL / NATS_URL, `npm start` runs private servers from the
// machine's binaries; these tests start and use them for real.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { startPrivateNats, startPrivatePostgres } from "../services/launcher/private-servers.js";

describe("private servers", () => {
  it("starts a nats-server with JetStream in the data folder and stops it", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "waybill-nats-"));
    const server = await startPrivateNats(dir);
    try {
      const nc = await connect({ servers: server.url });
      const info = await (await jetstreamManager(nc)).getAccountInfo();
      expect(info.limits).toBeDefined();
      await nc.close();
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
    await expect(connect({ servers: server.url, reconnect: false, timeout: 1_000 })).rejects.toThrow();
  });

  it("initialises and starts a PostgreSQL in the data folder, and reuses it on the next start", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "waybill-pg-"));
    try {
      for (const round of [1, 2]) {
        const server = await startPrivatePostgres(dir);
        try {
          const url = new URL(server.url);
          url.pathname = "/postgres";
          const client = new pg.Client({ connectionString: url.toString() });
          await client.connect();
          if (round === 1) await client.query("CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)");
          const { rows } = await client.query("SELECT n FROM kept");
          expect(rows).toEqual([{ n: 7 }]);
          await client.end();
        } finally {
          await server.stop();
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
