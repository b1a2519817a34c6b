// `waybill listen --forward-to` against the real system: it prints a secret first, forwards each
// event to a local receiver exactly as a delivery (same body bytes, headers, signature verifying
// with that secret), prints one line per forward, and after the stream drops resumes with the
// events it missed, none twice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../services/receiver/verify.js";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { createCli, type Cli } from "./support/cli.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { startTcpProxy, type TcpProxy } from "./support/tcp-proxy.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

let stack: Stack;
let proxy: TcpProxy;
let cli: Cli;
let call: Call;
let customerId: string;
let productId: string;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  // The CLI reaches the edge through a proxy the test can cut.
  proxy = await startTcpProxy({ host: "127.0.0.1", port: stack.edge.port });
  cli = await createCli({ WAYBILL_URL: `http://${proxy.address}`, WAYBILL_TOKEN: stack.token });
  call = client(stack);
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 0);
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await proxy?.stop();
  await cli?.cleanup();
  await stack?.stop();
});

async function receiver(): Promise<TestReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

const newOrder = async () => (await createOrder(call, customerId, [{ productId, quantity: 1 }])).id as string;

describe("waybill listen", () => {
  it("prints its signing secret on the first line", async () => {
    const local = await receiver();
    const listen = cli.spawn(["listen", "--forward-to", local.url]);
    const first = await listen.waitForLine(() => true);
    expect(listen.stdoutLines[0]).toBe(first);
    expect(first).toMatch(/^Ready\. Signing secret: whsec_[A-Za-z0-9+/=]+ \(hook id hook_listen_[0-9a-f]{16}\); forwarding every event to /);
    expect(await listen.stop()).toBe(0);
  });

  it("forwards an order.created exactly as a delivery, signed with the printed secret, and resumes after the stream drops", async () => {
    const local = await receiver();
    const realHookTarget = await receiver();
    await createHook(call, { url: realHookTarget.url, on: "order.created" });
    const listen = cli.spawn(["listen", "--forward-to", local.url, "--on", "order.created", "--json"]);
    const ready = JSON.parse(await listen.waitForLine(() => true));
    expect(ready).toMatchObject({ type: "ready", forwardTo: local.url, kinds: ["order.created"] });
    expect(ready.secret).toMatch(/^whsec_/);
    expect(ready.hookId).toMatch(/^hook_listen_/);
    await listen.waitForStderr("Connected");

    // Something the filter leaves out, then what it lets through.
    await createCustomer(call);
    const first = await newOrder();
    const [forwarded] = await local.waitFor(1);
    expect(forwarded.json).toMatchObject({ kind: "order.created", orderId: first });
    expect(forwarded.headers["content-type"]).toBe("application/json");
    expect(forwarded.headers["x-service-webhook-id"]).toBe(ready.hookId);
    expect(verifyWebhook(ready.secret, forwarded.headers["x-service-signature"] as string, forwarded.rawBody)).toMatchObject({ ok: true });
    expect(verifyWebhook(`${ready.secret}x`, forwarded.headers["x-service-signature"] as string, forwarded.rawBody)).toMatchObject({ ok: false });
    // Byte for byte the body the dispatcher POSTs for the same event.
    const delivered = await eventually(async () => realHookTarget.received.find((r) => r.json?.orderId === first));
    expect(forwarded.rawBody).toBe(delivered.rawBody);
    const line = JSON.parse(await listen.waitForLine((l) => l.includes('"forwarded"')));
    expect(line).toMatchObject({ type: "forwarded", eventId: forwarded.json.id, kind: "order.created", status: 200 });

    // The link carries nothing while an order is created, then drops: the client reconnects and
    // resumes after the last event it forwarded.
    proxy.blackhole();
    const missed = await newOrder();
    await eventually(async () => realHookTarget.received.find((r) => r.json?.orderId === missed));
    expect(local.received).toHaveLength(1);
    proxy.restore();
    await listen.waitForStderr("Stream dropped");
    const [, resumed] = await local.waitFor(2, 30_000);
    expect(resumed.json).toMatchObject({ kind: "order.created", orderId: missed });
    expect(verifyWebhook(ready.secret, resumed.headers["x-service-signature"] as string, resumed.rawBody)).toMatchObject({ ok: true });
    expect(listen.stderr()).toContain(`resuming after ${forwarded.json.id}`);

    const after = await newOrder();
    await eventually(async () => local.received.find((r) => r.json?.orderId === after));
    expect(local.received.map((r) => r.json.orderId)).toEqual([first, missed, after]);
    expect(listen.stdoutLines.filter((l) => l.includes('"forwarded"'))).toHaveLength(3);

    expect(await listen.stop()).toBe(0);
    expect(listen.stderr()).toContain("Stopped after forwarding 3 events");
  });

  it("shows the receiver's failure on the line and keeps going", async () => {
    const failing = await startReceiver(() => ({ status: 500, body: "boom" }));
    receivers.push(failing);
    const listen = cli.spawn(["listen", "--forward-to", failing.url, "--on", "order.created"]);
    await listen.waitForStderr("Connected");
    const orderId = await newOrder();
    await failing.waitFor(1);
    const line = await listen.waitForLine((l) => l.includes("→"));
    expect(line).toMatch(/order\.created\s+evt_[0-9a-z]{26}\s+→ 500 Internal Server Error\s+\d+ ms$/);
    expect(failing.received[0].json.orderId).toBe(orderId);
    const next = await newOrder();
    await failing.waitFor(2);
    expect(failing.received[1].json.orderId).toBe(next);
    await eventually(async () => (listen.stdoutLines.filter((l) => l.includes("→ 500")).length === 2 ? true : undefined));
    expect(await listen.stop()).toBe(0);
  });

  it("exits 1 with the problem code when the stream is refused", async () => {
    const local = await receiver();
    const refused = await cli.run(["listen", "--forward-to", local.url, "--on", "order.exploded"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: invalid_query \(HTTP 400\)/m);
    expect(refused.stderr).toContain("order.exploded");
  });
});
