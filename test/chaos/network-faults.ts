// Network faults with the kernel's own tools: a nats-server or a PostgreSQL runs in a network
// namespace of its own, reached from the services (in the root namespace) over a veth pair with
// private addresses (10.213.<n>.0/30, on these two interfaces only). On that link:
// - latency: `tc qdisc … netem delay` when the kernel has sch_netem, else the namespace's relay
//   (delay-relay.ts) holds each chunk of bytes, both ways;
// - loss: iptables' `statistic` match drops a share of the packets, both ways;
// - partition: iptables drops every packet, both ways (silently, like a cloud network: no RST).
// Needs root, iproute2 and iptables (iptables-legacy is used when present: it needs no nf_tables).
// Everything is bounded and removed by `stop()`; namespaces left by a run that died are removed by
// the next one (their name carries the pid that made them).
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { RestartableServer } from "../support/private-servers.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const NS_PREFIX = "wbchaos-";
const START_TIMEOUT_MS = 30_000;
/** One-way delay of the latency fault: 2 × 100 ms = 200 ms more per round trip. */
export const ONE_WAY_DELAY_MS = 100;
export const LOSS_PERCENT = 5;

export type LinkFault = "latency" | "loss" | "partition";

export interface FaultyServer extends RestartableServer {
  /** The namespace's name (for the report). */
  namespace: string;
  /** Applies a fault to the link (replacing the one before), or clears it (undefined). */
  fault(kind: LinkFault | undefined): Promise<void>;
  /** How the latency fault is made here: "netem" or "relay" (the kernel has no sch_netem). */
  latencyBy: "netem" | "relay";
}

/** Whether this machine can run the network faults: root, ip and iptables, and a namespace can be made (a container may forbid it). */
export function networkFaultsAvailable(): boolean {
  if (process.getuid?.() !== 0 || onPath("ip") === undefined || iptablesCommand() === undefined) return false;
  const probe = `${NS_PREFIX}${process.pid}-probe`;
  try {
    execFileSync("ip", ["netns", "add", probe], { stdio: "ignore" });
    execFileSync("ip", ["netns", "del", probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string, extra: string[] = []): string | undefined {
  return [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/sbin", ...extra].map((d) => path.join(d, name)).find((p) => existsSync(p));
}

function iptablesCommand(): string | undefined {
  return onPath("iptables-legacy") ?? onPath("iptables");
}

const ip = (...args: string[]) => run("ip", args);
const inNamespace = (ns: string, ...args: string[]) => run("ip", ["netns", "exec", ns, ...args]);

/** Removes namespaces (and their processes) that a run which died left behind. */
export async function removeStaleNamespaces(): Promise<void> {
  const { stdout } = await ip("netns", "list");
  for (const name of stdout.split("\n").map((l) => l.split(" ")[0])) {
    const owner = name.startsWith(NS_PREFIX) ? Number(name.slice(NS_PREFIX.length).split("-")[0]) : Number.NaN;
    if (Number.isNaN(owner) || alive(owner)) continue;
    destroyNamespace(name);
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Kills what runs in the namespace and deletes it (the veth pair goes with it). Synchronous, for exit handlers too. */
function destroyNamespace(name: string): void {
  try {
    const pids = execFileSync("ip", ["netns", "pids", name], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .split("\n")
      .filter(Boolean);
    for (const pid of pids) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {}
    }
    execFileSync("ip", ["netns", "del", name], { stdio: "ignore" });
  } catch {}
}

const created = new Set<string>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const name of created) destroyNamespace(name);
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      for (const name of created) destroyNamespace(name);
      process.exit(130);
    });
  }
}

interface Link {
  ns: string;
  hostIf: string;
  nsIf: string;
  hostAddress: string;
  nsAddress: string;
}

let subnet: number | undefined;
/**
 * The third octet of this run's links: the pid's, or the next one no interface here has an
 * address in (another run at the same time whose pid gave the same one). Read from `ip`, not
 * os.networkInterfaces(), which leaves out interfaces without a carrier: another run's veth
 * before its namespace side is up.
 */
function linkSubnet(): number {
  if (subnet !== undefined) return subnet;
  const addresses = execFileSync("ip", ["-4", "-o", "addr", "show"], { encoding: "utf8" });
  const used = new Set([...addresses.matchAll(/\b10\.213\.(\d+)\./g)].map((m) => Number(m[1])));
  subnet = Array.from({ length: 250 }, (_, i) => (process.pid + i) % 250).find((n) => !used.has(n)) ?? process.pid % 250;
  return subnet;
}

/** A namespace with a veth pair to the root namespace; `index` picks its /30 (0, 1…). */
async function createLink(index: number): Promise<Link> {
  installExitHook();
  const ns = `${NS_PREFIX}${process.pid}-${index}`;
  const tag = `${process.pid % 100_000}${index}`;
  const link: Link = {
    ns,
    hostIf: `wbh${tag}`,
    nsIf: `wbn${tag}`,
    hostAddress: `10.213.${linkSubnet()}.${index * 4 + 1}`,
    nsAddress: `10.213.${linkSubnet()}.${index * 4 + 2}`,
  };
  destroyNamespace(ns);
  await ip("netns", "add", ns);
  created.add(ns);
  await ip("link", "add", link.hostIf, "type", "veth", "peer", "name", link.nsIf);
  await ip("link", "set", link.nsIf, "netns", ns);
  await ip("addr", "add", `${link.hostAddress}/30`, "dev", link.hostIf);
  await ip("link", "set", link.hostIf, "up");
  await inNamespace(ns, "ip", "addr", "add", `${link.nsAddress}/30`, "dev", link.nsIf);
  await inNamespace(ns, "ip", "link", "set", link.nsIf, "up");
  await inNamespace(ns, "ip", "link", "set", "lo", "up");
  return link;
}

async function removeLink(link: Link): Promise<void> {
  await run("ip", ["link", "del", link.hostIf]).catch(() => {});
  destroyNamespace(link.ns);
  created.delete(link.ns);
}

interface Spawned {
  child: ChildProcess;
  exited: Promise<void>;
}

function spawnIn(ns: string, command: string[]): Spawned {
  const child = spawn("ip", ["netns", "exec", ns, ...command], { stdio: ["ignore", "pipe", "pipe"], cwd: ROOT });
  let out = "";
  child.stdout!.on("data", (c) => (out = (out + c).slice(-4_000)));
  child.stderr!.on("data", (c) => (out = (out + c).slice(-4_000)));
  child.once("error", () => {});
  const exited = new Promise<void>((resolve) => {
    if (child.pid === undefined) resolve();
    child.once("exit", () => resolve());
  });
  Object.defineProperty(child, "output", { get: () => out });
  return { child, exited };
}

const outputOf = (s: Spawned) => (s.child as ChildProcess & { output: string }).output;

async function stopSpawned(s: Spawned | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill(signal);
  const timer = setTimeout(() => s.child.kill("SIGKILL"), 15_000);
  await s.exited;
  clearTimeout(timer);
}

async function waitAnswers(host: string, port: number, what: string, s: Spawned): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (s.child.exitCode !== null) throw new Error(`${what} exited (${s.child.exitCode}): ${outputOf(s)}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host);
      const settle = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.setTimeout(1_000, () => settle(false));
      socket.once("connect", () => settle(true));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer on ${host}:${port} within ${START_TIMEOUT_MS} ms: ${outputOf(s)}`);
}

/** A server in its own namespace behind its relay: `command(innerPort)` starts it on the namespace's loopback. */
async function startFaultyServer(
  index: number,
  what: string,
  publicPort: number,
  innerPort: number,
  command: () => string[],
  stopSignal: NodeJS.Signals,
  url: (address: string) => string,
  cleanup: () => Promise<void>,
  ready: (link: Link, s: Spawned) => Promise<void>,
): Promise<FaultyServer> {
  const link = await createLink(index);
  const iptables = iptablesCommand()!;
  let server: Spawned | undefined;
  let relay: Spawned | undefined;
  let current: LinkFault | undefined;
  let latencyBy: "netem" | "relay" = "relay";
  const launch = async () => {
    server = spawnIn(link.ns, command());
    await ready(link, server);
  };
  try {
    relay = spawnIn(link.ns, [
      process.execPath,
      "--import",
      "tsx",
      path.join(ROOT, "test/chaos/delay-relay.ts"),
      link.nsAddress,
      String(publicPort),
      String(innerPort),
    ]);
    await launch();
    await waitAnswers(link.nsAddress, publicPort, `${what}'s relay`, relay);
    // Does this kernel have netem? (Checked once, on the link itself, then removed.)
    latencyBy = await run("tc", ["qdisc", "add", "dev", link.hostIf, "root", "netem", "delay", "0ms"]).then(
      async () => {
        await run("tc", ["qdisc", "del", "dev", link.hostIf, "root"]);
        return "netem" as const;
      },
      () => "relay" as const,
    );
  } catch (error) {
    await stopSpawned(server, "SIGKILL");
    await stopSpawned(relay, "SIGKILL");
    await removeLink(link);
    throw error;
  }
  const rules = async (action: "-A" | "-D", kind: "loss" | "partition") => {
    const match = kind === "loss" ? ["-m", "statistic", "--mode", "random", "--probability", String(LOSS_PERCENT / 100)] : [];
    await inNamespace(link.ns, iptables, action, "INPUT", "-i", link.nsIf, ...match, "-j", "DROP");
    await inNamespace(link.ns, iptables, action, "OUTPUT", "-o", link.nsIf, ...match, "-j", "DROP");
  };
  const latency = async (on: boolean) => {
    if (latencyBy === "relay") return void relay?.child.kill(on ? "SIGUSR1" : "SIGUSR2");
    const delay = ["netem", "delay", `${ONE_WAY_DELAY_MS}ms`];
    if (on) {
      await run("tc", ["qdisc", "replace", "dev", link.hostIf, "root", ...delay]);
      await inNamespace(link.ns, "tc", "qdisc", "replace", "dev", link.nsIf, "root", ...delay);
    } else {
      await run("tc", ["qdisc", "del", "dev", link.hostIf, "root"]).catch(() => {});
      await inNamespace(link.ns, "tc", "qdisc", "del", "dev", link.nsIf, "root").catch(() => {});
    }
  };
  const handle: FaultyServer = {
    url: url(link.nsAddress),
    port: publicPort,
    namespace: link.ns,
    latencyBy,
    async fault(kind) {
      if (current === "latency") await latency(false);
      else if (current) await rules("-D", current);
      current = kind;
      if (kind === "latency") await latency(true);
      else if (kind) await rules("-A", kind);
    },
    async kill(signal) {
      await stopSpawned(server, signal);
      server = undefined;
    },
    pause: () => server?.child.kill("SIGSTOP"),
    resume: () => server?.child.kill("SIGCONT"),
    async start() {
      if (!server) await launch();
    },
    async bounce(signal, downMs) {
      await handle.kill(signal);
      await new Promise((r) => setTimeout(r, downMs));
      await handle.start();
    },
    async stop() {
      server?.child.kill("SIGCONT");
      await stopSpawned(server, stopSignal);
      await stopSpawned(relay, "SIGTERM");
      await removeLink(link);
      await cleanup();
    },
  };
  return handle;
}

/** nats-server with JetStream in namespace `index`, at nats://10.213.x.y:4222. */
export async function startNamespacedNats(index: number): Promise<FaultyServer> {
  const binary = onPath("nats-server");
  if (!binary) throw new Error("nats-server is not installed");
  const dir = await mkdtemp(path.join(os.tmpdir(), "waybill-netns-nats-"));
  return startFaultyServer(
    index,
    "nats-server",
    4222,
    14222,
    () => [binary, "-js", "-sd", path.join(dir, "nats"), "-a", "127.0.0.1", "-p", "14222"],
    "SIGTERM",
    (address) => `nats://${address}:4222`,
    () => rm(dir, { recursive: true, force: true }),
    async (link, s) => waitInside(link, 14222, "nats-server", s),
  );
}

/** PostgreSQL (trust auth, user postgres) in namespace `index`, at postgres://postgres@10.213.x.y:5432/waybill. */
export async function startNamespacedPostgres(index: number): Promise<FaultyServer> {
  const binDirs = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql")
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => `/usr/lib/postgresql/${v}/bin`)
    : [];
  const initdb = onPath("initdb", binDirs);
  const postgres = initdb && onPath("postgres", [path.dirname(initdb), ...binDirs]);
  const setpriv = onPath("setpriv");
  if (!initdb || !postgres || !setpriv) throw new Error("PostgreSQL's server binaries (initdb, postgres) and setpriv are needed");
  const dir = await mkdtemp(path.join(os.tmpdir(), "waybill-netns-postgres-"));
  const data = path.join(dir, "data");
  await mkdir(data);
  const uid = Number((await run("id", ["-u", "postgres"])).stdout);
  const gid = Number((await run("id", ["-g", "postgres"])).stdout);
  await chown(dir, uid, gid);
  await chown(data, uid, gid);
  await run(initdb, ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"], { uid, gid, cwd: data });
  const asPostgres = [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups"];
  return startFaultyServer(
    index,
    "PostgreSQL",
    5432,
    15432,
    () => [...asPostgres, postgres, "-D", data, "-p", "15432", "-k", data, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"],
    "SIGINT",
    (address) => `postgres://postgres@${address}:5432/waybill`,
    () => rm(dir, { recursive: true, force: true }),
    async (link, s) => {
      await waitInside(link, 15432, "PostgreSQL", s);
      const deadline = Date.now() + START_TIMEOUT_MS;
      const isReady = onPath("pg_isready", [path.dirname(postgres), ...binDirs]);
      while (isReady) {
        const ok = await inNamespace(link.ns, isReady, "-h", "127.0.0.1", "-p", "15432", "-U", "postgres", "-q").then(
          () => true,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline) throw new Error("PostgreSQL did not accept connections in time");
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  );
}

/** Waits until something listens on the namespace's loopback at `port`. */
async function waitInside(link: Link, port: number, what: string, s: Spawned): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (s.child.exitCode !== null) throw new Error(`${what} exited (${s.child.exitCode}): ${outputOf(s)}`);
    const { stdout } = await inNamespace(link.ns, "ss", "-Hltn", `sport = :${port}`).catch(() => ({ stdout: "" }));
    if (stdout.trim()) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen in ${link.ns} within ${START_TIMEOUT_MS} ms: ${outputOf(s)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
