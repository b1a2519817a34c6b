// The commands issue 32 added, run as a user runs them against the real system: orders create from
// flags, hooks executions --follow --status, events list/get/tail, open (printing, and starting
// the desktop's opener when there is a display), and completion scripts that bash really completes with.
import { execFile } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createStockedProduct, type Call } from "./orders-fixtures.js";
import { createCli, type Cli } from "./support/cli.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const run = promisify(execFile);
let stack: Stack;
let cli: Cli;
let call: Call;
let customerId: string;
let productId: string;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  cli = await createCli({ WAYBILL_URL: stack.edge.url, WAYBILL_TOKEN: stack.token });
  call = client(stack);
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 10);
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await cli?.cleanup();
  await stack?.stop();
});

describe("waybill orders create from flags", () => {
  it("builds the order from --customer, --item (repeated) and --short-id", async () => {
    const other = await createStockedProduct(call, 10);
    const created = await cli.run([
      "orders",
      "create",
      "--customer",
      customerId,
      "--item",
      `${productId}:2:19.99`,
      "--item",
      `${other}:1:0.02`,
      "--short-id",
      "A-1001",
    ]);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^short id\s+A-1001$/m);
    expect(created.stdout).toMatch(/^total\s+40\.00 EUR$/m);
    expect(created.stdout).toContain(`2 × ${productId} at 19.99`);
    const generated = await cli.json(["orders", "create", "--customer", customerId, "--item", `${productId}:1:5`, "--currency", "USD"]);
    expect(generated).toMatchObject({ shortId: expect.stringMatching(/^CLI-[0-9A-F]{8}$/), currency: "USD", total: "5.00" });
    // Flags win over the file's fields.
    const fromFile = await cli.json(["orders", "create", "--file", "-", "--short-id", "FLAG-1"], {
      input: JSON.stringify({ shortId: "FILE-1", customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "1.00" }] }),
    });
    expect(fromFile.shortId).toBe("FLAG-1");

    for (const [args, message] of [
      [["--customer", customerId, "--item", "prd_x:two:1"], '"prd_x:two:1" must be PRODUCT:QUANTITY:PRICE'],
      [["--customer", customerId, "--item", `${productId}:0:1`], "must be a whole number of at least 1"],
      [["--customer", customerId], "give at least one --item"],
      [["--item", `${productId}:1:1`], "give --customer"],
    ] as const) {
      const refused = await cli.run(["orders", "create", ...args]);
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout).toBe("");
    }
  });
});

describe("waybill hooks executions --follow", () => {
  it("prints new attempts as they are recorded, only failed ones with --status failed", async () => {
    let fail = false;
    const target = await startReceiver(() => (fail ? { status: 503, body: "down" } : { status: 200, body: "ok" }));
    receivers.push(target);
    const hook = await createHook(call, { url: target.url, on: "order.created" });
    const all = cli.spawn(["hooks", "executions", hook.id, "--follow", "--interval", "1"]);
    const failed = cli.spawn(["hooks", "executions", hook.id, "--follow", "--status", "failed", "--interval", "1", "--json"]);
    await all.waitForStderr(`Following ${hook.id}; Ctrl-C to stop.`);
    await failed.waitForStderr(`Following ${hook.id} (failed only); Ctrl-C to stop.`);
    await cli.json(["orders", "create", "--customer", customerId, "--item", `${productId}:1:1`]);
    await target.waitFor(1);
    const ok = await all.waitForLine((l) => l.includes("order.created"));
    expect(ok).toMatch(/exe_[0-9a-z]{26}\s+order\.created\s+event\s+#1 {2}→ 200 {2}\d+ ms$/);
    fail = true;
    await cli.json(["orders", "create", "--customer", customerId, "--item", `${productId}:1:1`]);
    await target.waitFor(2);
    const line = JSON.parse(await failed.waitForLine((l) => l.includes('"failed"')));
    expect(line).toMatchObject({ hookId: hook.id, outcome: "failed", statusCode: 503, eventKind: "order.created" });
    await all.waitForLine((l) => l.includes("→ 503"));
    expect(await all.stop()).toBe(0);
    expect(await failed.stop()).toBe(0);
    expect(failed.stdoutLines.filter(Boolean).every((l) => JSON.parse(l).outcome === "failed")).toBe(true);
  });
});

describe("waybill events list, get, tail", () => {
  it("tails events as they happen, then lists and shows one", async () => {
    const tail = cli.spawn(["events", "tail", "--kind", "customer.created", "--json"]);
    await tail.waitForStderr("Ready; printing customer.created.");
    const id = await createCustomer(call, { name: "Tailed" });
    const tailed = JSON.parse(await tail.waitForLine((l) => l.includes(id)));
    expect(tailed).toMatchObject({ kind: "customer.created", customerId: id });
    expect(await tail.stop()).toBe(0);

    const got = await cli.run(["events", "get", tailed.id]);
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual(tailed);
    const listed = await cli.json(["events", "list", "--transaction", tailed.transactionId]);
    expect(listed.map((e: { id: string }) => e.id)).toEqual([tailed.id]);
    const missing = await cli.run(["events", "get", "evt_01kbadbadbadbadbadbadbadba"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: event_not_found \(HTTP 404\): No event "evt_01kbadbadbadbadbadbadbadba"/);
    expect((await cli.run(["events", "get", "ord_x"])).code).toBe(2);
  });
});

describe("waybill open", () => {
  it("prints the console URL of a page; on a desktop also starts the opener with it", async () => {
    const cases: [string[], string][] = [
      [[], "/"],
      [["orders"], "/orders"],
      [["orders", "ord_01abc"], "/orders/ord_01abc"],
      [["hooks", "hook_01abc"], "/webhooks/hook_01abc"],
      [["events"], "/events"],
      [["devices", "dev_1"], "/devices/dev_1"],
      [["products"], "/inventory"],
      [["products", "prd_1"], "/products/prd_1"],
      [["customers", "cus_1"], "/customers/cus_1"],
    ];
    for (const [args, pathname] of cases) {
      const opened = await cli.run(["open", ...args], { env: { DISPLAY: "" } });
      expect(opened.code, opened.stderr).toBe(0);
      expect(opened.stdout).toBe(`${stack.edge.url}${pathname}\n`);
    }
    const filtered = await cli.run(["open", "orders", "--filter", "status=ready", "--filter", "customerId=cus_1"], { env: { DISPLAY: "" } });
    expect(filtered.stdout).toBe(`${stack.edge.url}/orders?status=ready&customerId=cus_1\n`);
    expect((await cli.run(["open", "orders", "--filter", "ready"])).code).toBe(2);
    expect((await cli.run(["open", "tokens", "tok_1"])).code).toBe(2);
    expect((await cli.run(["open", "bogus"])).code).toBe(2);

    // A display and an xdg-open on the PATH: it is started with the URL.
    const bin = path.join(cli.configHome, "bin");
    const seen = path.join(cli.configHome, "opened.txt");
    await run("mkdir", ["-p", bin]);
    await writeFile(path.join(bin, "xdg-open"), `#!/bin/sh\necho "$1" > ${seen}\n`);
    await chmod(path.join(bin, "xdg-open"), 0o755);
    const desktop = await cli.run(["open", "orders", "ord_01abc", "--json"], { env: { DISPLAY: ":0", PATH: `${bin}:${process.env.PATH}` } });
    expect(JSON.parse(desktop.stdout)).toEqual({ url: `${stack.edge.url}/orders/ord_01abc`, opened: true });
    expect(await eventually(async () => (await readFile(seen, "utf8").catch(() => undefined))?.trim())).toBe(`${stack.edge.url}/orders/ord_01abc`);
  });
});

describe("waybill completion", () => {
  /** What bash offers after typing `line` (with the script sourced). */
  async function bashCompletes(script: string, line: string): Promise<string[]> {
    const words = line.split(" ");
    const program = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _waybill; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await run("bash", ["-c", program]);
    return stdout.trim().split("\n").filter(Boolean).sort();
  }

  it("completes commands, subcommands and options in bash; zsh and fish scripts are generated", async () => {
    const bash = await cli.run(["completion", "bash"]);
    expect(bash.code).toBe(0);
    expect(await bashCompletes(bash.stdout, "waybill ho")).toEqual(["hooks"]);
    expect(await bashCompletes(bash.stdout, "waybill hooks ")).toEqual(
      ["create", "delete", "executions", "get", "list", "pause", "recover", "resume", "retry", "rotate", "test", "update", "--help"].sort(),
    );
    expect(await bashCompletes(bash.stdout, "waybill hooks executions hook_01abc --st")).toEqual(["--status"]);
    expect(await bashCompletes(bash.stdout, "waybill trigger --l")).toEqual(["--list"]);
    const zsh = await cli.run(["completion", "zsh"]);
    expect(zsh.stdout).toMatch(/^#compdef waybill\n/);
    expect(zsh.stdout).toContain("complete -o default -F _waybill waybill");
    const fish = await cli.run(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c waybill -n 'test (__waybill_path) = '\\'''\\''' -a 'hooks'");
    expect((await cli.run(["completion", "tcsh"])).code).toBe(2);
  });
});
