// What counts as a receiver's answer: a redirect is a failed attempt (never followed), and an
// answer whose body never ends is cut (its first 4 KiB kept) with the attempt over within the
// timeout, so such a receiver cannot hold a delivery slot for longer.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, executionsOf, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const TIMEOUT_MS = 1_000;

let stack: Stack;
let call: Call;
let redirectTarget: TestReceiver;
let streaming: http.Server;
let streamingUrl: string;
beforeAll(async () => {
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) } });
  call = client(stack);
  redirectTarget = await startReceiver();
  // Answers 200 and then writes forever: "/flood" as fast as it can, "/trickle" a byte every 20 ms.
  streaming = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = req.url === "/flood" ? "z".repeat(16_384) : "z";
      const write = () => {
        if (res.destroyed) return;
        if (res.write(chunk)) setTimeout(write, req.url === "/flood" ? 0 : 20);
        else res.once("drain", write);
      };
      write();
    });
  });
  await new Promise<void>((resolve) => streaming.listen(0, "127.0.0.1", resolve));
  streamingUrl = `http://127.0.0.1:${(streaming.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await redirectTarget?.close();
  streaming?.closeAllConnections();
  await new Promise((resolve) => streaming?.close(resolve));
  await stack?.stop();
});

describe("a receiver that answers 302", () => {
  it("is a failed attempt; the redirect is not followed", async () => {
    const redirecting = await startReceiver(() => ({ status: 302, body: "see other", headers: { location: redirectTarget.url } }));
    try {
      const hook = await createHook(call, { url: redirecting.url, on: "webhook.test" });
      const answer = await call(`/hooks/${hook.id}/test`, { method: "POST" });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ outcome: "failed", statusCode: 302, responseBody: "see other", error: null, trigger: "test" });
      expect(answer.body.responseHeaders.location).toBe(redirectTarget.url);
      await sleep(300);
      expect(redirecting.received).toHaveLength(1);
      expect(redirectTarget.received).toEqual([]);
      expect((await call(`/hooks/${hook.id}`)).body).toMatchObject({ successCount: 0, errorCount: 1 });
    } finally {
      await redirecting.close();
    }
  });
});

describe("a receiver whose answer never ends", () => {
  it.each([
    ["floods", "/flood"],
    ["trickles", "/trickle"],
  ])("that %s is cut: its first 4 KiB kept, the attempt over within the timeout", async (_name, path) => {
    const hook = await createHook(call, { url: `${streamingUrl}${path}`, on: "webhook.test" });
    const started = Date.now();
    const answer = await call(`/hooks/${hook.id}/test`, { method: "POST" });
    const took = Date.now() - started;
    expect(answer.status).toBe(200);
    // The receiver answered 200 in time; the body it kept sending is not waited for.
    expect(answer.body).toMatchObject({ outcome: "succeeded", statusCode: 200 });
    expect(answer.body.responseBody).toMatch(/^z+$/);
    expect(answer.body.responseBody.length).toBeLessThanOrEqual(4096);
    if (path === "/flood") expect(answer.body.responseBody).toHaveLength(4096);
    expect(answer.body.durationMs).toBeLessThanOrEqual(TIMEOUT_MS + 250); // cut by the timeout, not waited out
    // The whole round trip through the API: the timeout, plus room for a loaded machine.
    expect(took).toBeLessThan(TIMEOUT_MS + 2_000);
    const [execution] = await executionsOf(call, hook.id);
    expect(execution).toMatchObject({ id: answer.body.id, responseBody: answer.body.responseBody });
  });
});
