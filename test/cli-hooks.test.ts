// The built `waybill` client against the real system, webhooks first (the interface's own flow):
// register a hook and receive deliveries that verify with the secret it printed, test it, read
// its executions, rotate (the old secret stops verifying), pause (nothing delivered while another
// hook receives), delete only when confirmed.
import { stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../services/receiver/verify.js";
import { profilesPath } from "../clients/cli/src/config/profiles.js";
import { createCli, type Cli } from "./support/cli.js";
import { startStack, type Stack } from "./support/stack.js";
import { LOOPBACK_RECEIVERS, startReceiver, type ReceivedRequest, type TestReceiver } from "./webhooks-fixtures.js";
import { eventually } from "./support/http.js";

let stack: Stack;
let cli: Cli;
let customerId: string;
let productId: string;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  cli = await createCli({ WAYBILL_URL: stack.edge.url });
  const login = await cli.run(["login", "--token", stack.token, "--keep-token"]);
  expect(login.code, login.stderr).toBe(0);
  customerId = (await cli.json(["customers", "create", "--name", "Hook Tester"])).id;
  productId = (await cli.json(["products", "create", "--sku", `HOOK-${Date.now()}`, "--name", "Hook product"])).id;
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await cli?.cleanup();
  await stack?.stop();
});

async function receiver(): Promise<TestReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** Creates an order through the CLI (from standard input) and answers its id. */
async function createOrder(): Promise<string> {
  const order = {
    shortId: `CLI-${Math.random().toString(36).slice(2, 10)}`,
    customerId,
    currency: "EUR",
    orderItems: [{ productId, quantity: 1, price: "4.20" }],
  };
  const created = await cli.json(["orders", "create", "--file", "-"], { input: JSON.stringify(order) });
  return created.id;
}

const deliveryOf = (target: TestReceiver, orderId: string) => eventually(async () => target.received.find((r) => r.json?.orderId === orderId));
const signatureOf = (request: ReceivedRequest) => request.headers["x-service-signature"] as string;

/** `hooks create` as a person sees it: the hook, then the secret with its warning. */
async function createHook(url: string, name = "shop"): Promise<{ id: string; secret: string }> {
  const created = await cli.run(["hooks", "create", "--name", name, "--url", url, "--on", "order.created"]);
  expect(created.code, created.stderr).toBe(0);
  expect(created.stderr).toContain("shown only now and will not be shown again");
  const secret = /Signing secret: (whsec_\S+)/.exec(created.stdout)?.[1];
  const id = /\b(hook_[0-9a-z]{26})\b/.exec(created.stdout)?.[1];
  expect(secret, created.stdout).toBeDefined();
  expect(id, created.stdout).toBeDefined();
  return { id: id!, secret: secret! };
}

describe("waybill hooks", () => {
  it("stored the login in a profile only its owner can read", async () => {
    const file = await stat(profilesPath({ XDG_CONFIG_HOME: cli.configHome }));
    expect(file.mode & 0o777).toBe(0o600);
    const me = await cli.json(["whoami"]);
    expect(me).toMatchObject({ url: stack.edge.url, profile: "default", credentialFrom: "profile", access: "ok" });
  });

  it("registers a hook whose deliveries verify with the secret it printed; tests it and lists its executions", async () => {
    const target = await receiver();
    const hook = await createHook(target.url);
    const orderId = await createOrder();
    const delivery = await deliveryOf(target, orderId);
    expect(delivery.headers["x-service-webhook-id"]).toBe(hook.id);
    expect(verifyWebhook(hook.secret, signatureOf(delivery), delivery.rawBody)).toMatchObject({ ok: true });

    const tested = await cli.run(["hooks", "test", hook.id]);
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(new RegExp(`${target.url} answered 200 in \\d+ ms`));
    const testDelivery = await eventually(async () => target.received.find((r) => r.json?.kind === "webhook.test"));
    expect(verifyWebhook(hook.secret, signatureOf(testDelivery), testDelivery.rawBody)).toMatchObject({ ok: true });

    const executions = await eventually(async () => {
      const list = await cli.json(["hooks", "executions", hook.id]);
      return list.length >= 2 ? list : undefined;
    });
    expect(executions.map((e: Record<string, unknown>) => e.trigger).sort()).toEqual(["event", "test"]);
    expect(executions.every((e: Record<string, unknown>) => e.statusCode === 200 && e.outcome === "succeeded")).toBe(true);
    const table = await cli.run(["hooks", "executions", hook.id]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+REQUESTED\s+EVENT\s+TRIGGER\s+ATTEMPT\s+STATUS\s+DURATION\s+RESPONSE$/);
    expect(table.stdout).toContain("webhook.test");
  });

  it("rotates the secret: later deliveries verify with the new one and not with the old", async () => {
    const target = await receiver();
    const hook = await createHook(target.url);
    const rotated = await cli.run(["hooks", "rotate", hook.id]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newSecret = /Signing secret: (whsec_\S+)/.exec(rotated.stdout)?.[1];
    expect(newSecret).toBeDefined();
    expect(newSecret).not.toBe(hook.secret);
    const delivery = await deliveryOf(target, await createOrder());
    expect(verifyWebhook(hook.secret, signatureOf(delivery), delivery.rawBody)).toEqual({ ok: false, reason: "signature mismatch" });
    expect(verifyWebhook(newSecret!, signatureOf(delivery), delivery.rawBody)).toMatchObject({ ok: true });
  });

  it("pauses a hook: it gets nothing while an active hook gets the same event; resumed, it gets the next", async () => {
    const pausedTarget = await receiver();
    const activeTarget = await receiver();
    const paused = await createHook(pausedTarget.url, "paused one");
    await createHook(activeTarget.url, "active one");
    const pause = await cli.run(["hooks", "pause", paused.id]);
    expect(pause.code, pause.stderr).toBe(0);
    expect(pause.stdout).toContain(`Hook ${paused.id} is paused.`);
    expect((await cli.json(["hooks", "get", paused.id])).status).toBe("paused");

    const whilePaused = await createOrder();
    await deliveryOf(activeTarget, whilePaused);
    const afterResume = await (async () => {
      const resume = await cli.run(["hooks", "resume", paused.id]);
      expect(resume.code, resume.stderr).toBe(0);
      return createOrder();
    })();
    await deliveryOf(pausedTarget, afterResume);
    // The event of the paused time was fanned out before the one after resuming, and never to it.
    expect(pausedTarget.received.map((r) => r.json.orderId)).toEqual([afterResume]);
    const executions = await cli.json(["hooks", "executions", paused.id]);
    expect(executions.map((e: Record<string, unknown>) => e.eventKind)).toEqual(["order.created"]);
  });

  it("deletes only when confirmed: without a terminal it needs --yes", async () => {
    const hook = await createHook((await receiver()).url, "to delete");
    const refused = await cli.run(["hooks", "delete", hook.id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect((await cli.run(["hooks", "get", hook.id])).code).toBe(0);
    const deleted = await cli.run(["hooks", "delete", hook.id, "--yes"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    const gone = await cli.run(["hooks", "get", hook.id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^error: hook_not_found \(HTTP 404\)/);
  });

  it("lists hooks as a table on a terminal-less stdout and as a JSON array with --json", async () => {
    const listed = await cli.json(["hooks", "list"]);
    expect(Array.isArray(listed)).toBe(true);
    expect(listed).toHaveLength(4); // five created above, one deleted
    expect(listed.every((h: Record<string, unknown>) => typeof h.id === "string" && !("secret" in h))).toBe(true);
    const limited = await cli.json(["hooks", "list", "--limit", "2"]);
    expect(limited.map((h: Record<string, unknown>) => h.id)).toEqual(listed.slice(0, 2).map((h: Record<string, unknown>) => h.id));
    const table = await cli.run(["hooks", "list"]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+ON\s+STATUS\s+URL/);
    expect(table.stdout).not.toContain("\u001b[");
  });
});
