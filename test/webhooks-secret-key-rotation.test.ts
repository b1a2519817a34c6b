// Rotating the key that seals hook secrets while deliveries flow: the dispatcher restarts with
// the new WEBHOOK_SECRET_KEY and the old one as WEBHOOK_SECRET_KEY_PREVIOUS, re-seals every
// hook's secret in the background (a gauge counts those left), every delivery before, during
// and after is signed with the hook's unchanged secret (checked by the reference receiver), and
// once the gauge is 0 the previous key can go. The operator command re-seals and verifies too.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyFingerprint, parseSealingKey } from "@waybill/platform/sealed-box.js";
import { loadDispatcherConfig } from "../services/dispatcher/config.js";
import { createReceiver } from "../services/receiver/example-receiver.js";
import { SECRETS_PREVIOUS_KEY_GAUGE } from "../services/dispatcher/secret-key-setup.js";
import { startDispatcher, type DispatcherHandle } from "../services/dispatcher/service.js";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { NODE_ARGS, ROOT } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, sleep } from "./webhooks-fixtures.js";

const HOOKS = 6;
const OLD_KEY = randomBytes(32).toString("base64");
const NEW_KEY = randomBytes(32).toString("base64");
const NEWER_KEY = randomBytes(32).toString("base64");
const fingerprint = (key: string) => keyFingerprint(parseSealingKey(key, "key"));

interface Witness {
  hookId: string;
  secret: string;
  server: http.Server;
  events: Set<string>;
  rejected: string[];
}

let stack: Stack;
let call: Call;
let db: pg.Client;
let dispatcher: DispatcherHandle | undefined;
const witnesses: Witness[] = [];

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      ...LOOPBACK_RECEIVERS,
      WEBHOOK_SECRET_KEY: OLD_KEY,
      // Small, paced batches, so the re-seal is still going while deliveries flow.
      WEBHOOK_SECRET_RESEAL_BATCH_SIZE: "2",
      WEBHOOK_SECRET_RESEAL_PAUSE_MS: "300",
      WEBHOOK_SECRET_RESEAL_INTERVAL_MS: "500",
    },
  });
  call = client(stack);
  db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  for (let i = 0; i < HOOKS; i++) {
    const witness: Witness = { hookId: "", secret: "", server: undefined as unknown as http.Server, events: new Set(), rejected: [] };
    witness.server = createReceiver({
      secret: () => witness.secret,
      onEvent: ({ event }) => void witness.events.add(event.id),
      onRejected: (reason) => void witness.rejected.push(reason),
    });
    await new Promise<void>((resolve) => witness.server.listen(0, "127.0.0.1", resolve));
    const hook = await createHook(call, { url: `http://127.0.0.1:${(witness.server.address() as AddressInfo).port}/`, on: "order.created" });
    Object.assign(witness, { hookId: hook.id, secret: hook.secret });
    witnesses.push(witness);
  }
}, 60_000);
afterAll(async () => {
  await dispatcher?.stop();
  for (const w of witnesses) {
    w.server.closeAllConnections();
    await new Promise<void>((resolve) => w.server.close(() => resolve()));
  }
  await db?.end();
  await stack?.stop();
});

/** Restarts the dispatcher with these keys, on the same gRPC port (the edge keeps its address). */
async function restartDispatcher(keys: Record<string, string>): Promise<DispatcherHandle> {
  const port = stack.dispatcher.grpcPort;
  await (dispatcher ?? stack.dispatcher).stop();
  const { WEBHOOK_SECRET_KEY_PREVIOUS: _none, ...env } = stack.serviceEnv;
  dispatcher = await startDispatcher(loadDispatcherConfig({ ...env, ...keys, GRPC_PORT: String(port) }));
  return dispatcher;
}

function secretsCli(args: string[], keys: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, path.join(ROOT, "services/dispatcher/secrets-cli.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: stack.env.databaseUrl, WEBHOOK_SECRET_KEY_PREVIOUS: "", ...keys },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const sealedKeys = async () =>
  (await db.query<{ secret_sealed: string }>("SELECT secret_sealed FROM dispatcher.hooks")).rows.map((r) => r.secret_sealed.split(".").at(-1));

/** Every receiver has verified a delivery of each of `count` events, and refused none. */
async function everyHookReceived(count: number): Promise<void> {
  await eventually(async () => (witnesses.every((w) => w.events.size >= count) ? true : undefined), 60_000, 100);
  for (const w of witnesses) {
    expect(w.rejected, `hook ${w.hookId}`).toEqual([]);
    expect(w.events.size).toBe(count);
  }
}

describe("rotating WEBHOOK_SECRET_KEY", () => {
  it("keeps every delivery signed correctly while hooks are re-sealed, and the gauge reaches 0", async () => {
    const customer = await createCustomer(call);
    const product = await createStockedProduct(call, 100_000);
    let orders = 0;
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        await createOrder(call, customer, [{ productId: product, quantity: 1 }]);
        orders += 1;
        await sleep(40);
      }
    })();
    try {
      await sleep(800);
      expect(new Set(await sealedKeys())).toEqual(new Set([fingerprint(OLD_KEY)]));
      const atRestart = orders;
      const rotated = await restartDispatcher({ WEBHOOK_SECRET_KEY: NEW_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: OLD_KEY });
      // The gauge counts down as batches are re-sealed, while orders keep coming.
      const seen = new Set<number>();
      await eventually(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${rotated.opsPort}/metrics`)).text();
          const line = text.split("\n").find((l) => new RegExp(`^${SECRETS_PREVIOUS_KEY_GAUGE}[ {]`).test(l));
          expect(line).toBeDefined();
          const left = Number(line!.split(" ").pop());
          seen.add(left);
          return left === 0 ? true : undefined;
        },
        30_000,
        50,
      );
      expect(Math.max(...seen)).toBeGreaterThan(0);
      expect(orders, "orders created while the secrets were re-sealed").toBeGreaterThan(atRestart);
      expect(new Set(await sealedKeys())).toEqual(new Set([fingerprint(NEW_KEY)]));
      await sleep(800);
    } finally {
      flowing = false;
      await flow;
    }
    expect(orders).toBeGreaterThan(10);
    await everyHookReceived(orders);

    // The command agrees: the previous key may go.
    const verify = await secretsCli(["verify"], { WEBHOOK_SECRET_KEY: NEW_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: OLD_KEY });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain(`hooks: ${HOOKS}, sealed with the current key (${fingerprint(NEW_KEY)}): ${HOOKS}`);
    expect(verify.stdout).toContain("WEBHOOK_SECRET_KEY_PREVIOUS may be removed");

    // Without the previous key: the dispatcher starts and deliveries stay signed correctly.
    await restartDispatcher({ WEBHOOK_SECRET_KEY: NEW_KEY });
    await createOrder(call, customer, [{ productId: product, quantity: 1 }]);
    await everyHookReceived(orders + 1);
  }, 120_000);

  it("re-seals with the command, with progress, when the dispatcher is stopped", async () => {
    await dispatcher!.stop();
    const pending = await secretsCli(["verify"], { WEBHOOK_SECRET_KEY: NEWER_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: NEW_KEY });
    expect(pending.code).toBe(1);
    expect(pending.stdout).toContain(`not yet re-sealed: ${HOOKS}`);
    const lost = await secretsCli(["verify"], { WEBHOOK_SECRET_KEY: NEWER_KEY });
    expect(lost.code).toBe(1);
    expect(lost.stdout).toContain(`open with neither key: ${HOOKS}`);

    const run = await secretsCli(["reseal", "--batch-size", "2"], { WEBHOOK_SECRET_KEY: NEWER_KEY, WEBHOOK_SECRET_KEY_PREVIOUS: NEW_KEY });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.match(/^re-sealed \d+ \(up to hook_/gm)).toHaveLength(HOOKS / 2);
    expect(run.stdout).toContain(`re-sealed ${HOOKS} hook secret(s)`);
    expect(run.stdout).toContain("WEBHOOK_SECRET_KEY_PREVIOUS may be removed");
    expect(new Set(await sealedKeys())).toEqual(new Set([fingerprint(NEWER_KEY)]));

    // The re-seal recorded the new key: the dispatcher starts with it alone and signs as before.
    await restartDispatcher({ WEBHOOK_SECRET_KEY: NEWER_KEY });
    const before = Math.min(...witnesses.map((w) => w.events.size));
    await createOrder(call, await createCustomer(call), [{ productId: await createStockedProduct(call, 5), quantity: 1 }]);
    await everyHookReceived(before + 1);
  }, 60_000);
});
