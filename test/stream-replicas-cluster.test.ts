// NATS_STREAM_REPLICAS on a real three-server JetStream cluster (private servers on loopback):
// streams are created with three copies, a service configured with fewer never lowers them,
// and a stream an operator created with one copy is raised without losing the operator's limits.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { nanos } from "@nats-io/transport-node";
import { StorageType } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, createTopology, ensureStreams, type Bus } from "@waybill/platform/nats.js";
import { freePorts } from "../services/launcher/ports.js";

const logger = createLogger("stream-replicas-cluster-test", "silent");
let dir: string;
const servers: ChildProcess[] = [];
let bus: Bus;
let url: string;

/** Starts three servers on fresh ports; throws (servers stopped) when they do not form a cluster. */
async function startCluster(attempt: number): Promise<void> {
  const output: string[] = [];
  const ports = await freePorts(9);
  const nodes = [0, 1, 2].map((i) => ({ i, client: ports[3 * i], cluster: ports[3 * i + 1], monitor: ports[3 * i + 2] }));
  const routes = nodes.map((n) => `nats://127.0.0.1:${n.cluster}`).join(",");
  for (const n of nodes) {
    const server = spawn(
      process.env.NATS_SERVER_BIN ?? "nats-server",
      [
        "-a",
        "127.0.0.1",
        "-p",
        String(n.client),
        "-m",
        String(n.monitor),
        "-n",
        `n${n.i}`,
        "-js",
        "-sd",
        path.join(dir, `attempt-${attempt}`, `n${n.i}`),
        "--cluster_name",
        "waybill-test",
        "--cluster",
        `nats://127.0.0.1:${n.cluster}`,
        "--routes",
        routes,
      ],
      { env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` }, stdio: ["ignore", "ignore", "pipe"] },
    );
    server.stderr?.on("data", (chunk: Buffer) => {
      output.push(`n${n.i}: ${chunk.toString().trim()}`);
      if (output.length > 40) output.shift();
    });
    servers.push(server);
  }
  // Healthy once every server has JetStream with a meta leader.
  const deadline = Date.now() + 30_000;
  for (const n of nodes) {
    while (
      !(await fetch(`http://127.0.0.1:${n.monitor}/healthz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      const exited = servers.some((server) => server.exitCode !== null);
      if (exited || Date.now() > deadline) {
        await stopServers();
        throw new Error(`the private NATS cluster did not form${exited ? " (a server exited)" : ""}:\n${output.slice(-20).join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  url = nodes.map((n) => `nats://127.0.0.1:${n.client}`).join(",");
}

async function stopServers(): Promise<void> {
  for (const server of servers.splice(0)) {
    if (server.exitCode !== null) continue;
    server.kill("SIGKILL");
    await new Promise((resolve) => server.once("exit", resolve));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "waybill-nats-cluster-"));
  // A port found free can be taken by another test's server before this one binds it: then the
  // cluster starts again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      await startCluster(attempt);
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
  bus = await connectBus({ url, name: "cluster-test", topology: createTopology("C_"), logger });
}, 120_000);

afterAll(async () => {
  await bus?.close();
  for (const server of servers) server.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("ensureStreams on a three-server cluster", () => {
  it("creates streams with three copies, and a service set to one copy does not lower them", async () => {
    await ensureStreams(bus, logger, 3);
    const events = bus.topology.eventsStream;
    expect((await bus.jsm.streams.info(events)).config.num_replicas).toBe(3);
    await ensureStreams(bus, logger, 1);
    const info = await bus.jsm.streams.info(events);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.replicas ?? []).toHaveLength(2); // a leader and two followers
  }, 30_000);

  it("raises a one-copy stream an operator made, keeping the operator's limits", async () => {
    const topology = createTopology("R_");
    const raised = await connectBus({ url, name: "cluster-test-2", topology, logger });
    try {
      await raised.jsm.streams.add({
        name: topology.ingressStream,
        subjects: [topology.ingressWildcard],
        storage: StorageType.File,
        num_replicas: 1,
        max_age: nanos(60_000),
        max_msgs: 1234,
      });
      await ensureStreams(raised, logger, 3);
      const config = (await raised.jsm.streams.info(topology.ingressStream)).config;
      expect(config.num_replicas).toBe(3);
      expect(config.max_age).toBe(nanos(60_000));
      expect(config.max_msgs).toBe(1234);
    } finally {
      await raised.close();
    }
  }, 30_000);
});
