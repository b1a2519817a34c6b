// When no PostgreSQL or NATS answers at the configured URL, `npm start` runs a private one from
// the machine's binaries, keeping its data in WAYBILL_DATA_DIR.
//
// Lifetime: each server runs in its own process group, so a terminal's Ctrl-C (a SIGINT to the
// launcher's whole group) does not reach it; the launcher stops it itself, after the services that
// use it have drained. A guard stops it when the launcher dies without doing so.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdir, open, readFile, stat } from "node:fs/promises";
import type net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { answers, freePort } from "./ports.js";

const run = promisify(execFile);

/** How often a server is started again on another free port when its port was taken meanwhile. */
const START_ATTEMPTS = 3;
const START_TIMEOUT_MS = 30_000;
/** A server that has not stopped this long after its stop signal is killed. */
const STOP_TIMEOUT_MS = 30_000;

export class MissingBinaryError extends Error {}

export interface PrivateServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Sends `signal` (SIGKILL: a crash) and waits for the server to exit; its data folder stays. */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Sends `signal` without waiting (SIGSTOP / SIGCONT: a server that hangs and comes back). */
  signal(signal: NodeJS.Signals): void;
}

interface ServerSpec {
  what: string;
  command: string;
  args(port: number): string[];
  /** Where the server's output goes (appended), read back when it fails to start. */
  logFile: string;
  /** The signal that makes it shut down cleanly and promptly. */
  stopSignal: NodeJS.Signals;
  /** Run as this user (PostgreSQL refuses to run as root). */
  user?: { uid: number; gid: number };
  cwd: string;
}

function findBinary(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), ...extraDirs];
  return dirs.map((dir) => path.join(dir, name)).find((candidate) => existsSync(candidate));
}

function postgresBinDirs(): string[] {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(root, version, "bin"));
}

/** `port`: listen there (a restart on the same port and data folder); a free port otherwise. */
export async function startPrivateNats(dataDir: string, options: { port?: number } = {}): Promise<PrivateServer> {
  const binary = findBinary("nats-server");
  if (!binary) {
    throw new MissingBinaryError("No NATS server answers and nats-server is not installed. Install it (Debian: apt-get install nats-server) or set NATS_URL.");
  }
  const storeDir = path.join(dataDir, "nats");
  await mkdir(storeDir, { recursive: true });
  const spec: ServerSpec = {
    what: "nats-server",
    command: binary,
    args: (port) => ["-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", String(port)],
    logFile: path.join(dataDir, "nats.log"),
    stopSignal: "SIGTERM",
    cwd: dataDir,
  };
  const { port, stop, kill, signal } = await startServer(spec, options.port);
  return { url: `nats://127.0.0.1:${port}`, port, stop, kill, signal };
}

/** `port`: listen there (a restart on the same port and data folder); a free port otherwise. */
export async function startPrivatePostgres(dataDir: string, options: { port?: number } = {}): Promise<PrivateServer> {
  const initdb = findBinary("initdb", postgresBinDirs());
  const postgres = initdb && findBinary("postgres", [path.dirname(initdb), ...postgresBinDirs()]);
  if (!initdb || !postgres) {
    throw new MissingBinaryError(
      "No PostgreSQL answers and its server binaries are not installed. Install them (Debian: apt-get install postgresql) or set DATABASE_URL.",
    );
  }
  const pgData = path.join(dataDir, "postgres");
  await mkdir(pgData, { recursive: true });
  // PostgreSQL refuses to run as root; run it as the postgres system user then, owning its data.
  let user: ServerSpec["user"];
  if (process.getuid?.() === 0) {
    user = { uid: Number((await run("id", ["-u", "postgres"])).stdout), gid: Number((await run("id", ["-g", "postgres"])).stdout) };
    await chown(dataDir, user.uid, user.gid);
    await chown(pgData, user.uid, user.gid);
  }
  if (!existsSync(path.join(pgData, "PG_VERSION"))) {
    await run(initdb, ["-D", pgData, "-U", "postgres", "--auth=trust", "-E", "UTF8"], { cwd: pgData, ...user });
  }
  const spec: ServerSpec = {
    what: "PostgreSQL",
    command: postgres,
    args: (port) => ["-D", pgData, "-p", String(port), "-k", pgData, "-c", "listen_addresses=127.0.0.1"],
    logFile: path.join(dataDir, "postgres.log"),
    stopSignal: "SIGINT", // "fast" shutdown: does not wait for clients that are still connected
    user,
    cwd: pgData,
  };
  const { port, stop, kill, signal } = await startServer(spec, options.port);
  // PostgreSQL listens before it accepts connections ("the database system is starting up", while
  // it replays its log): ready is when pg_isready says so.
  const isReady = findBinary("pg_isready", [path.dirname(postgres), ...postgresBinDirs()]);
  if (isReady) {
    try {
      await acceptingConnections(isReady, port);
    } catch (error) {
      await stop();
      throw error;
    }
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/waybill`, port, stop, kill, signal };
}

async function acceptingConnections(isReady: string, port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const ready = await run(isReady, ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q"]).then(
      () => true,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`PostgreSQL on port ${port} did not accept connections within ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts the server and waits until it listens. A free port can be taken between choosing it and
 * the server binding it; then the server is started again on another one.
 */
async function startServer(spec: ServerSpec, fixedPort?: number): Promise<{ port: number } & Pick<PrivateServer, "stop" | "kill" | "signal">> {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort());
    const logFrom = await stat(spec.logFile).then(
      (s) => s.size,
      () => 0,
    );
    const server = await spawnServer(spec, port);
    try {
      await waitListening(server.child, port, spec.what);
      return { port, stop: server.stop, kill: server.kill, signal: server.signal };
    } catch (error) {
      await server.stop();
      const log = (await readFile(spec.logFile).catch(() => Buffer.alloc(0))).subarray(logFrom).toString().trim();
      if (fixedPort === undefined && attempt < START_ATTEMPTS && /address already in use/i.test(log)) continue;
      throw new Error(`${(error as Error).message}${log ? `; its output (${spec.logFile}):\n${log.slice(-2_000)}` : ""}`);
    }
  }
}

async function spawnServer(spec: ServerSpec, port: number): Promise<{ child: ChildProcess } & Pick<PrivateServer, "stop" | "kill" | "signal">> {
  const log = await open(spec.logFile, "a");
  let child: ChildProcess;
  try {
    // detached: a process group of its own (see the top of this file). Not unref'd: this process
    // owns it and stops it.
    child = spawn(spec.command, spec.args(port), { stdio: ["ignore", log.fd, log.fd], detached: true, cwd: spec.cwd, ...spec.user });
  } finally {
    await log.close(); // the child has its own copy
  }
  const exited = new Promise<void>((resolve) => {
    if (child.pid === undefined) return resolve(); // spawn failed; 'error' follows
    child.once("exit", () => resolve());
  });
  child.once("error", () => {}); // a failed spawn shows as "exited before listening"
  if (child.pid !== undefined) {
    const guard = startGuard(child.pid, spec.stopSignal);
    // Once the server is gone its pid may be reused: the guard must never signal it then.
    void exited.then(() => guard.kill("SIGKILL"));
  }
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  const signal = (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
  };
  return { child, stop: () => kill(spec.stopSignal), kill, signal };
}

/**
 * Stops `pid` when this process ends, however it ends (crash, SIGKILL): the guard, a shell in its
 * own process group, blocks reading a pipe from this process; the kernel closes the pipe when this
 * process is gone, the read returns, and the guard signals the server.
 */
function startGuard(pid: number, signal: NodeJS.Signals): ChildProcess {
  const guard = spawn("/bin/sh", ["-c", `read _; kill -s ${signal.replace(/^SIG/, "")} "$1" 2>/dev/null`, "waybill-guard", String(pid)], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  guard.once("error", () => {}); // without /bin/sh, the launcher still stops its servers itself
  // Neither the guard nor its pipe keeps this process alive.
  guard.unref();
  (guard.stdin as net.Socket | null)?.unref();
  return guard;
}

async function waitListening(child: ChildProcess, port: number, what: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      throw new Error(`${what} exited before listening on 127.0.0.1:${port} (${child.signalCode ?? `code ${child.exitCode}`})`);
    }
    if (await answers("127.0.0.1", port, 500)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start listening on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms`);
}
