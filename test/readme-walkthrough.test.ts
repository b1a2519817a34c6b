// The README's first run and webhook walkthrough, followed literally: its ```sh blocks are run by
// bash, one shell session per round as a reader would type them, against `npm start` started by
// its own blocks (a child process group, stopped with Ctrl-C's SIGINT) on a fresh data folder,
// free ports and a database of its own. Then everything again on the same data folder: a second
// start must give a working token too (the bootstrap does not run twice).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../services/launcher/ports.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { ROOT } from "./support/processes.js";

const STEP_TIMEOUT_MS = 90_000;
const README = readFileSync(path.join(ROOT, "README.md"), "utf8");

/** The ```sh blocks between a heading and the next heading of the same or a higher level, unindented. */
function shBlocks(heading: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  const level = heading.split(" ")[0];
  const rest = README.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body
      .split("\n")
      .map((line) => line.slice(indent.length))
      .join("\n")
      .trimEnd(),
  );
}

const isStart = (block: string) => /(^|\s)npm start$/.test(block.trim()) && !block.trim().includes("\n");

let env: TestEnvironment;
let dataDir: string;
let runEnv: Record<string, string>;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  env = await createTestEnvironment();
  dataDir = mkdtempSync(path.join(os.tmpdir(), "waybill-readme-"));
  const [httpPort, mqttPort, receiverPort] = await freePorts(3);
  const { NODE_OPTIONS: _dropped, ...inherited } = process.env as Record<string, string>;
  runEnv = {
    ...inherited,
    ...env.env,
    LOG_LEVEL: "warn",
    WAYBILL_DATA_DIR: dataDir,
    HTTP_PORT: String(httpPort),
    MQTT_PORT: String(mqttPort),
    RECEIVER_PORT: String(receiverPort),
  };
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
  await env?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A start block (`… npm start`) run by bash in a process group of its own, as a terminal would. */
async function startServer(block: string): Promise<{ output: () => string; stop(): Promise<void> }> {
  const child = spawn("bash", ["-c", block], { cwd: ROOT, env: runEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!out.includes("Press Ctrl-C to stop.")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    output: () => out,
    async stop() {
      process.kill(-child.pid!, "SIGINT"); // Ctrl-C reaches the whole foreground group
      await exited;
      children.delete(child);
      expect(out).toContain("Waybill: stopped.");
    },
  };
}

/** One bash session, fed block after block like a terminal: `set -euo pipefail`, so a failing command ends it. */
function shell() {
  const child = spawn("bash", [], { cwd: ROOT, env: runEnv, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (err += c));
  child.stdin!.write("set -euo pipefail\n");
  let steps = 0;
  return {
    /** Runs `block`; resolves with what it printed; rejects when a command fails (bash exits). */
    async run(block: string): Promise<string> {
      const marker = `__STEP_${++steps}_DONE__`;
      const from = out.length;
      child.stdin!.write(`${block}\necho ${marker}\n`);
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (!out.includes(marker)) {
        if (child.exitCode !== null)
          throw new Error(`step failed (bash exited ${child.exitCode}):\n${block}\n--- stdout\n${out.slice(from)}\n--- stderr\n${err}`);
        if (Date.now() > deadline) throw new Error(`step timed out:\n${block}\n--- stdout\n${out.slice(from)}\n--- stderr\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return out.slice(from, out.indexOf(marker));
    },
    close() {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      children.delete(child);
    },
  };
}

async function walkthrough(round: number) {
  const firstRun = shBlocks("### First start");
  const webhooks = shBlocks("### Receiving webhooks, step by step");
  expect(firstRun[0]).toBe("npm start");
  expect(webhooks[0]).toBe("WEBHOOK_ALLOW_PRIVATE_NETWORKS=true npm start");
  expect(firstRun.slice(1).some(isStart) || webhooks.slice(1).some(isStart)).toBe(false);

  const session = shell();
  try {
    const server = await startServer(firstRun[0]);
    if (round === 1) expect(server.output()).toMatch(/Waybill first start: created tenant "default"/);
    else expect(server.output()).toContain("npm run -s admin -- tokens create --tenant default");
    const outputs: string[] = [];
    for (const block of firstRun.slice(1)) outputs.push(await session.run(block));
    const printed = outputs.join("\n");
    expect(printed).toMatch(/^10$/m); // onHand after the adjustment
    expect(printed).toMatch(/^25\.00$/m); // the order's total
    expect(printed).toMatch(/^ready$/m); // stock reserved
    expect(printed).toMatch(/"onHand":10,"reserved":2,"available":8/);
    const vars = await session.run('printf "%s\\n" "$WAYBILL_TOKEN" "$PRODUCT" "$CUSTOMER" "$ORDER"');
    expect(vars.trim().split("\n")).toEqual([
      expect.stringMatching(/^api-[A-Za-z0-9_-]{43}$/),
      expect.stringMatching(/^prd_[0-9a-z]{26}$/),
      expect.stringMatching(/^cus_[0-9a-z]{26}$/),
      expect.stringMatching(/^ord_[0-9a-z]{26}$/),
    ]);
    await server.stop();

    // The webhook walkthrough restarts Waybill and goes on in the same shell.
    const withHooks = await startServer(webhooks[0]);
    const steps: string[] = [];
    for (const block of webhooks.slice(1)) steps.push(await session.run(block));
    const hook = await session.run('printf "%s\\n" "$HOOK_ID" "$WEBHOOK_SECRET"');
    expect(hook.trim().split("\n")).toEqual([expect.stringMatching(/^hook_[0-9a-z]{26}$/), expect.stringMatching(/^whsec_/)]);
    const all = steps.join("\n");
    expect(all).toContain(`webhook receiver listening on http://127.0.0.1:${runEnv.RECEIVER_PORT}/`);
    expect(all).toMatch(/^succeeded$/m);
    expect(all).toMatch(/received webhook\.test evt_[0-9a-z]{26}/);
    expect(all).toMatch(/received order\.created evt_[0-9a-z]{26}/);
    await withHooks.stop();
  } finally {
    session.close();
  }
}

describe("the README walkthrough, run literally", () => {
  it("succeeds on a fresh data folder", async () => {
    await walkthrough(1);
  }, 300_000);

  it("succeeds again after a restart on the same data folder (the second start gives a working token too)", async () => {
    await walkthrough(2);
  }, 300_000);
});
