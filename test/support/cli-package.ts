// The `waybill` client as a user installs it: `npm pack` in clients/cli (its prepack bundles it),
// then `npm install -g <tarball>` into an empty prefix, from a directory outside the repository.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const CLI_PACKAGE = path.resolve(import.meta.dirname, "../../clients/cli");

export interface InstalledCli {
  tarball: string;
  prefix: string;
  /** The installed `waybill` executable. */
  bin: string;
  /** Where to run it from: a directory with nothing of the repository around it. */
  cwd: string;
  remove(): Promise<void>;
}

/** The environment of a machine without the repository: no NODE_PATH, no npm workspace settings. */
export function outsideEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key === "NODE_PATH" || key === "NODE_OPTIONS" || key.startsWith("npm_") || key.startsWith("WAYBILL_")) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export async function packAndInstall(): Promise<InstalledCli> {
  const root = await mkdtemp(path.join(os.tmpdir(), "waybill-cli-install-"));
  const packed = await run("npm", ["pack", "--json", "--pack-destination", root], { cwd: CLI_PACKAGE, env: outsideEnv(), maxBuffer: 16 * 1024 * 1024 });
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as { filename: string }[];
  const tarball = path.join(root, path.basename(filename));
  const prefix = path.join(root, "prefix");
  const cwd = path.join(root, "elsewhere");
  await run("mkdir", ["-p", prefix, cwd]);
  await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--offline", tarball], { cwd, env: outsideEnv() });
  return { tarball, prefix, bin: path.join(prefix, "bin", "waybill"), cwd, remove: () => rm(root, { recursive: true, force: true }) };
}
