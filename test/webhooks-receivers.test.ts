// Real deliveries from a running stack verify three ways, each independent of the dispatcher's
// own signing code: (a) the procedure docs/webhooks.md describes, written out here with
// node:crypto; (b) the compiled helper (services/receiver/dist, built by `npm run build:receiver`)
// imported by plain `node`, no TypeScript loader; (c) Stripe's official SDK,
// `stripe.webhooks.constructEvent(rawBody, header, secret)`, given our header and whole secret as they are.
import { execFile, spawn } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { ROOT } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type ReceivedRequest, type TestReceiver } from "./webhooks-fixtures.js";

const DIST = path.join(ROOT, "services/receiver/dist");

let stack: Stack;
let call: Call;
let receiver: TestReceiver;
let secret: string;
let deliveries: ReceivedRequest[];

beforeAll(async () => {
  // The build step CI runs (npm ci → prepare); run here too so the test checks what it produces.
  await promisify(execFile)("npm", ["run", "-s", "build:receiver"], { cwd: ROOT, timeout: 120_000 });
  stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  call = client(stack);
  receiver = await startReceiver(() => ({ status: 204 }));
  const hook = await createHook(call, { url: receiver.url, on: "order.created" });
  secret = hook.secret;
  expect((await call(`/hooks/${hook.id}/test`, { method: "POST" })).body.outcome).toBe("succeeded");
  const customerId = await createCustomer(call);
  const productId = await createStockedProduct(call, 0);
  await createOrder(call, customerId, [{ productId, quantity: 2 }]);
  deliveries = await receiver.waitFor(2);
  expect(deliveries.map((d) => d.json.kind).sort()).toEqual(["order.created", "webhook.test"]);
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const header = (d: ReceivedRequest) => d.headers["x-service-signature"] as string;
const tampered = (d: ReceivedRequest) => d.rawBody.replace(/"kind":"/, '"kind":"x');

/** docs/webhooks.md, "Verifying a delivery", step by step. */
function verifyAsDocumented(whsec: string, signatureHeader: string, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  // 1. Split the header on "," and each part on the first "=": t is the time, every v1 a signature.
  const parts = signatureHeader.split(",").map((part) => [part.slice(0, part.indexOf("=")), part.slice(part.indexOf("=") + 1)]);
  const t = Number(parts.find(([key]) => key === "t")?.[1]);
  const signatures = parts.filter(([key]) => key === "v1").map(([, value]) => value);
  // 2. Refuse a t more than 300 seconds from now.
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return false;
  // 3. HMAC-SHA256, key = the whole secret including "whsec_" as UTF-8, message = t + "." + raw body.
  const expected = createHmac("sha256", whsec).update(`${t}.${rawBody}`).digest();
  // 4. Compare in constant time with each v1.
  return signatures.some((candidate) => {
    const given = Buffer.from(candidate, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Runs plain `node` (no tsx, no TypeScript) importing the compiled helper; answers its results. */
function verifyWithCompiledHelper(cases: { secret: string; header: string; body: string }[]): Promise<unknown[]> {
  const script = `
    import { verifyWebhook } from ${JSON.stringify(path.join(DIST, "verify.js"))};
    let input = "";
    process.stdin.on("data", (c) => (input += c));
    process.stdin.on("end", () => {
      const cases = JSON.parse(input);
      process.stdout.write(JSON.stringify(cases.map((c) => verifyWebhook(c.secret, c.header, c.body))));
    });`;
  return new Promise((resolve, reject) => {
    const { NODE_OPTIONS: _dropped, ...env } = process.env;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`node exited ${code}: ${err}`))));
    child.stdin.end(JSON.stringify(cases));
  });
}

describe("real deliveries verify", () => {
  it("(a) with the documented procedure, written inline; a changed body or another secret does not", () => {
    for (const d of deliveries) {
      expect(verifyAsDocumented(secret, header(d), d.rawBody), d.json.kind).toBe(true);
      expect(verifyAsDocumented(secret, header(d), tampered(d))).toBe(false);
      expect(verifyAsDocumented(`${secret}x`, header(d), d.rawBody)).toBe(false);
      expect(verifyAsDocumented(secret, header(d), d.rawBody, Math.floor(Date.now() / 1000) + 301)).toBe(false);
    }
  });

  it("(b) with the compiled helper imported by plain node", async () => {
    const cases = deliveries.flatMap((d) => [
      { secret, header: header(d), body: d.rawBody },
      { secret, header: header(d), body: tampered(d) },
    ]);
    const results = await verifyWithCompiledHelper(cases);
    expect(results).toEqual(
      deliveries.flatMap(() => [
        { ok: true, timestamp: expect.any(Number) },
        { ok: false, reason: "signature mismatch" },
      ]),
    );
  });

  it("(c) with Stripe's SDK: constructEvent accepts our header and whole whsec_ secret unchanged", () => {
    const stripe = new Stripe("sk_test_unused_no_network_call");
    for (const d of deliveries) {
      const event = stripe.webhooks.constructEvent(d.rawBody, header(d), secret) as unknown as { id: string; kind: string };
      expect(event.id).toBe(d.json.id);
      expect(event.kind).toBe(d.json.kind);
      expect(() => stripe.webhooks.constructEvent(tampered(d), header(d), secret)).toThrow(/No signatures found matching the expected signature/);
      // Stripe uses the secret string as the HMAC key as it is: the "whsec_" prefix is part of the key, as in ours.
      expect(() => stripe.webhooks.constructEvent(d.rawBody, header(d), secret.slice("whsec_".length))).toThrow();
    }
  });
});
