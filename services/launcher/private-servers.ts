// When no PostgreSQL or NATS answers at the configured URL, `npm start` runs a private one from
// the machine's binaries, keeping its data in WAYBILL_DATA_DIR.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { answers, freePort } from "./ports.js";

const run = promisify(execFile);

export class MissingBinaryError extends Error {}

export interface PrivateServer {
  url: string;
  stop(): Promise<void>;
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

async function waitFor(host: string, port: number, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await answers(host, port, 500)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not start listening on ${host}:${port} within ${timeoutMs} ms`);
}

/** `port`: listen there (a restart on the same port and data folder); a free port otherwise. */
export async function startPrivateNats(dataDir: string, options: { port?: number } = {}): Promise<PrivateServer> {
  const binary = findBinary("nats-server");
  if (!binary) {
    throw new MissingBinaryError("No NATS server answers and nats-server is not installed. Install it (Debian: apt-get install nats-server) or set NATS_URL.");
  }
  const storeDir = path.join(dataDir, "nats");
  await mkdir(storeDir, { recursive: true });
  const port = options.port ?? (await freePort());
  const child = spawn(binary, ["-js", "-sd", storeDir, "-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  await waitFor("127.0.0.1", port, "nats-server");
  return { url: `nats://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

export async function startPrivatePostgres(dataDir: string): Promise<PrivateServer> {
  const initdb = findBinary("initdb", postgresBinDirs());
  const postgres = initdb && findBinary("postgres", [path.dirname(initdb), ...postgresBinDirs()]);
  if (!initdb || !postgres) {
    throw new MissingBinaryError("No PostgreSQL answers and its server binaries are not installed. Install them (Debian: apt-get install postgresql) or set DATABASE_URL.");
  }
  const pgData = path.join(dataDir, "postgres");
  await mkdir(pgData, { recursive: true });
  // PostgreSQL refuses to run as root; run it as the postgres system user then.
  const asUser = process.getuid?.() === 0 ? "postgres" : undefined;
  if (asUser) {
    const { stdout } = await run("id", ["-u", asUser]);
    const { stdout: gid } = await run("id", ["-g", asUser]);
    await chown(dataDir, Number(stdout), Number(gid));
    await chown(pgData, Number(stdout), Number(gid));
  }
  const wrap = (cmd: string, args: string[]): [string, string[]] => (asUser ? ["runuser", ["-u", asUser, "--", cmd, ...args]] : [cmd, args]);
  if (!existsSync(path.join(pgData, "PG_VERSION"))) {
    const [cmd, args] = wrap(initdb, ["-D", pgData, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    await run(cmd, args);
  }
  const port = await freePort();
  const [cmd, args] = wrap(postgres, ["-D", pgData, "-p", String(port), "-k", pgData, "-c", "listen_addresses=127.0.0.1"]);
  const child = spawn(cmd, args, { stdio: "ignore" });
  await waitFor("127.0.0.1", port, "PostgreSQL");
  return { url: `postgres://postgres@127.0.0.1:${port}/waybill`, stop: () => stopChild(child) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM"); // both servers shut down cleanly on SIGTERM
  });
}
