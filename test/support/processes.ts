// Runs a service's main.ts (or the launcher) as a real child process, as production would.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync } from "node:fs";
import path from "node:path";
import { NODE_FLAGS } from "../../packages/platform/node-flags.js";

export const ROOT = path.resolve(import.meta.dirname, "../..");
// tsx loaded into node itself rather than through the tsx CLI: the CLI relays signals to its
// child and SIGKILLs one that does not react within milliseconds, which cuts a drain short. The
// condition makes the workspace packages (@waybill/*) resolve to their sources, not dist/.
export const NODE_ARGS = ["--conditions=@waybill/source", "--import", "tsx"];

export interface Child {
  process: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited(timeoutMs?: number): Promise<number | null>;
}

export function runTs(entry: string, env: Record<string, string | undefined>): Child {
  return runNode([...NODE_ARGS, path.join(ROOT, entry)], env);
}

/** Runs compiled JavaScript (`npm run build`'s dist/) with plain node, as the production image does. */
export function runJs(entry: string, env: Record<string, string | undefined>): Child {
  return runNode([path.join(ROOT, entry)], env);
}

function runNode(args: string[], env: Record<string, string | undefined>): Child {
  // CPU_PROFILE_DIR (benchmarks): every child writes a V8 CPU profile there when it exits.
  const profile = process.env.CPU_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.CPU_PROFILE_DIR}`] : [];
  // SERVICE_NODE_FLAGS (benchmarks): more flags for every child, e.g. "--trace-gc" (not allowed in NODE_OPTIONS).
  const extraFlags = (process.env.SERVICE_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  // A child logs to its standard output, which tests read; a full run keeps it beside the
  // in-process services' logs (LOG_FILE), where the secret scan reads it.
  const { LOG_FILE: logFile, ...childEnv } = { ...process.env, ...env };
  const child = spawn(process.execPath, [...NODE_FLAGS, ...profile, ...extraFlags, ...args], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  if (logFile) child.once("exit", () => appendFileSync(logFile.replace(/\.log$/, `-child-${child.pid}.log`), out));
  return {
    process: child,
    output: () => out,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    exited(timeoutMs = 30_000) {
      return Promise.race([
        exit,
        new Promise<null>((_, reject) => setTimeout(() => reject(new Error(`still running after ${timeoutMs} ms:\n${out}`)), timeoutMs)),
      ]);
    },
  };
}
