// When nothing answers at DATABASE_URL / NATS_URL, `npm start` runs private servers from the
// machine's binaries; these tests start and use them for real.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../services/launcher/ports.js";
import { startPrivateNats, startPrivatePostgres } from "../services/launcher/private-servers.js";
import { NODE_ARGS, ROOT } from "./support/processes.js";

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

/** Processes whose command line names `dir` (the private servers are started with their data folder). */
async function processesOf(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(dir)) found.push(`${pid} ${cmdline.replaceAll("\0", " ")}`);
  }
  return found;
}

/**
 * `npm start` as a terminal runs it: the launcher in a process group of its own, and Ctrl-C is a
 * SIGINT to that whole group. The private servers must not get it; the launcher stops them last.
 * Node with tsx's loader, not the tsx CLI: the CLI's parent process SIGKILLs its child when the
 * child does not confirm a signal within 2 × 30 ms, which a loaded machine sometimes misses.
 */
function startLauncher(env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "services/launcher/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const exited = (timeoutMs: number) =>
    Promise.race([exit, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still running after ${timeoutMs} ms:\n${out}`)), timeoutMs))]);
  const waitFor = async (pattern: RegExp, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${pattern}; output:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { pid: child.pid!, output: () => out, exited, waitFor, running: () => child.exitCode === null && child.signalCode === null };
}

async function eventuallyNone(dir: string, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await processesOf(dir);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("npm start with private servers", () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "waybill-launcher-"));
    // Nothing listens on these ports, so the launcher starts private servers into `dir`.
    const [pgPort, natsPort] = await freePorts(2);
    env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/waybill`,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      WAYBILL_DATA_DIR: dir,
      HTTP_PORT: "0",
      MQTT_PORT: "0",
      LOG_LEVEL: "warn",
      STREAM_PREFIX: undefined,
      WEBHOOK_SECRET_KEY: undefined,
    };
  });
  afterAll(async () => {
    for (const line of await processesOf(dir)) process.kill(Number(line.split(" ")[0]), "SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("on Ctrl-C stops the services first and the private servers last, exits 0 and leaves nothing running", async () => {
    const launcher = startLauncher(env);
    try {
      await launcher.waitFor(/Press Ctrl-C to stop\./, 90_000);
      expect(launcher.output()).toContain("private PostgreSQL at");
      expect(launcher.output()).toContain("private NATS at");
      process.kill(-launcher.pid, "SIGINT");
      expect(await launcher.exited(60_000)).toBe(0);
    } finally {
      if (launcher.running()) process.kill(-launcher.pid, "SIGKILL");
    }
    const out = launcher.output();
    expect(out).toContain("Waybill: stopped.");
    expect(out).not.toMatch(/outbox left pending|shutting down|ECONNREFUSED|error while stopping|while stopping:|"level":(50|60)/);
    expect(await eventuallyNone(dir, 5_000)).toEqual([]);
    // A clean PostgreSQL shutdown removes its lock file.
    expect(existsSync(path.join(dir, "postgres", "postmaster.pid"))).toBe(false);
  }, 150_000);

  it("stops the private servers when the launcher is killed outright", async () => {
    const launcher = startLauncher(env);
    try {
      await launcher.waitFor(/Press Ctrl-C to stop\./, 90_000);
      expect((await processesOf(dir)).length).toBeGreaterThan(0);
    } finally {
      process.kill(-launcher.pid, "SIGKILL");
    }
    await launcher.exited(10_000);
    // The guards notice the launcher is gone and stop the servers cleanly.
    expect(await eventuallyNone(dir, 20_000)).toEqual([]);
    expect(existsSync(path.join(dir, "postgres", "postmaster.pid"))).toBe(false);
  }, 150_000);
});
