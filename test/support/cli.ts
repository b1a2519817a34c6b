// Runs the built `waybill` client as a child process, the way a user does, with its own config
// directory (XDG_CONFIG_HOME) so that stored profiles never leak between tests or into $HOME.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eventually } from "./http.js";

/** The built client; WAYBILL_CLI_MAIN runs another build (e.g. an older one, to reproduce a defect). */
export const CLI_MAIN = process.env.WAYBILL_CLI_MAIN ?? path.resolve(import.meta.dirname, "../../clients/cli/dist/main.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Cli {
  configHome: string;
  env: Record<string, string>;
  run(args: string[], options?: { input?: string; env?: Record<string, string> }): Promise<CliResult>;
  /** Runs and expects exit 0 and JSON on stdout (adds --json). */
  // biome-ignore lint/suspicious/noExplicitAny: the JSON a command printed, read by each test for the fields of its own command
  json(args: string[], options?: { input?: string; env?: Record<string, string> }): Promise<any>;
  spawn(args: string[]): LongRunning;
  cleanup(): Promise<void>;
}

export interface LongRunning {
  child: ChildProcessWithoutNullStreams;
  stdoutLines: string[];
  stderr(): string;
  waitForLine(test: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  waitForStderr(text: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<number | null>;
}

/** A CLI bound to one server; `env` overrides (WAYBILL_TOKEN …) apply to every run. */
export async function createCli(env: Record<string, string> = {}): Promise<Cli> {
  const configHome = await mkdtemp(path.join(os.tmpdir(), "waybill-cli-"));
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("WAYBILL_")) base[key] = value;
  const cli: Cli = {
    configHome,
    env: { ...base, XDG_CONFIG_HOME: configHome, NO_COLOR: "1", ...env },
    run(args, options = {}) {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [CLI_MAIN, ...args], { env: { ...cli.env, ...options.env } });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => (stdout += chunk));
        child.stderr.on("data", (chunk) => (stderr += chunk));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(options.input ?? "");
      });
    },
    async json(args, options) {
      const result = await cli.run([...args, "--json"], options);
      if (result.code !== 0) throw new Error(`waybill ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
    spawn(args) {
      const child = spawn(process.execPath, [CLI_MAIN, ...args], { env: cli.env });
      const stdoutLines: string[] = [];
      let partial = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        partial += chunk.toString();
        const lines = partial.split("\n");
        partial = lines.pop()!;
        stdoutLines.push(...lines);
      });
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      return {
        child,
        stdoutLines,
        stderr: () => stderr,
        waitForLine: (test, timeoutMs = 15_000) => eventually(async () => stdoutLines.find(test), timeoutMs, 20),
        waitForStderr: async (text, timeoutMs = 15_000) => void (await eventually(async () => (stderr.includes(text) ? true : undefined), timeoutMs, 20)),
        async stop() {
          if (child.exitCode === null) child.kill("SIGINT");
          return exited;
        },
      };
    },
    cleanup: () => rm(configHome, { recursive: true, force: true }),
  };
  return cli;
}
