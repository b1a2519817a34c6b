// The sender against real sockets on loopback (no database, no NATS).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSender, RESPONSE_BODY_LIMIT_BYTES, type Sender } from "./sender.js";

let server: http.Server;
let base: string;
const seen: { url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ url: req.url, headers: req.headers, body });
      if (req.url === "/big") return void res.writeHead(200, { "content-type": "text/plain" }).end("é".repeat(RESPONSE_BODY_LIMIT_BYTES));
      if (req.url === "/slow") return void setTimeout(() => res.writeHead(200).end(), 1_000);
      if (req.url === "/busy") return void res.writeHead(429, { "retry-after": "7", "set-cookie": ["a=1", "b=2"] }).end("slow down");
      if (req.url === "/nul") return void res.writeHead(500).end("a\u0000b");
      if (req.url === "/redirect") return void res.writeHead(302, { location: `${base}/target` }).end("moved");
      if (req.url === "/endless" || req.url === "/trickle") return void stream(res, req.url === "/endless" ? 16_384 : 1, req.url === "/endless" ? 0 : 20);
      res.writeHead(201, { "x-answer": "yes" }).end("created");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
/** Writes `size`-byte chunks every `everyMs` until the client goes away: an answer that never ends. */
function stream(res: http.ServerResponse, size: number, everyMs: number) {
  res.writeHead(200, { "content-type": "text/plain" });
  const chunk = "y".repeat(size);
  const write = () => {
    if (res.destroyed) return;
    if (res.write(chunk)) setTimeout(write, everyMs);
    else res.once("drain", () => setTimeout(write, everyMs));
  };
  write();
}

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function withSender(options: { timeoutMs?: number; allowPrivateNetworks?: boolean }, fn: (sender: Sender) => Promise<void>) {
  return async () => {
    const sender = createSender({ timeoutMs: options.timeoutMs ?? 5_000, allowPrivateNetworks: options.allowPrivateNetworks ?? true, connectionsPerHook: 8 });
    try {
      await fn(sender);
    } finally {
      await sender.close();
    }
  };
}

describe("sender", () => {
  it(
    "POSTs the body with the given headers and reports a 2xx as success",
    withSender({}, async (sender) => {
      const result = await sender.send("hook_1", `${base}/ok?x=1`, '{"a":1}', { "Content-Type": "application/json", "X-Service-Webhook-Id": "hook_1" });
      expect(result).toMatchObject({ ok: true, statusCode: 201, responseBody: "created", error: null, receiverFault: false, aborted: false });
      expect(result.responseHeaders["x-answer"]).toBe("yes");
      // node:http sends `connection`, `keep-alive` and `transfer-encoding` too: the connection's, not the answer's.
      expect(Object.keys(result.responseHeaders).sort()).toEqual(["date", "x-answer"]);
      expect(seen.at(-1)).toMatchObject({ body: '{"a":1}', headers: { "content-type": "application/json", "x-service-webhook-id": "hook_1" } });
    }),
  );

  it(
    "keeps the first 4 KiB of an answer and joins repeated headers",
    withSender({}, async (sender) => {
      const big = await sender.send("hook_1", `${base}/big`, "{}", {});
      expect(Buffer.byteLength(big.responseBody!)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT_BYTES + 2);
      expect(big.responseBody!.length).toBeGreaterThan(2000);
      const busy = await sender.send("hook_1", `${base}/busy`, "{}", {});
      expect(busy).toMatchObject({ ok: false, statusCode: 429, retryAfter: "7", receiverFault: true, responseBody: "slow down" });
      expect(busy.responseHeaders["set-cookie"]).toBe("a=1, b=2");
      expect((await sender.send("hook_1", `${base}/nul`, "{}", {})).responseBody).toBe("a\uFFFDb");
    }),
  );

  it(
    "fails a receiver that answers too late, or not at all",
    withSender({ timeoutMs: 200 }, async (sender) => {
      const slow = await sender.send("hook_1", `${base}/slow`, "{}", {});
      expect(slow).toMatchObject({ ok: false, statusCode: null, error: "timeout after 200 ms", receiverFault: true });
      expect(slow.durationMs).toBeGreaterThanOrEqual(150);
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      expect(await sender.send("hook_1", `http://127.0.0.1:${port}/`, "{}", {})).toMatchObject({ ok: false, error: "connection refused", receiverFault: true });
    }),
  );

  it(
    "does not follow a redirect: a 302 is the answer, a failed attempt",
    withSender({}, async (sender) => {
      const result = await sender.send("hook_1", `${base}/redirect`, "{}", {});
      expect(result).toMatchObject({ ok: false, statusCode: 302, responseBody: "moved", error: null, receiverFault: false });
      expect(result.responseHeaders.location).toBe(`${base}/target`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen.filter((r) => r.url === "/target")).toEqual([]);
    }),
  );

  it(
    "cuts an endless answer: 4 KiB kept, the attempt over well within the timeout",
    withSender({ timeoutMs: 2_000 }, async (sender) => {
      const started = performance.now();
      const result = await sender.send("hook_1", `${base}/endless`, "{}", {});
      expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(result.responseBody).toBe("y".repeat(RESPONSE_BODY_LIMIT_BYTES));
      expect(performance.now() - started).toBeLessThan(2_000);
    }),
  );

  it(
    "cuts an answer that trickles on past the timeout, keeping its status and what arrived",
    withSender({ timeoutMs: 300 }, async (sender) => {
      const started = performance.now();
      const result = await sender.send("hook_1", `${base}/trickle`, "{}", {});
      const took = performance.now() - started;
      expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(result.responseBody!.length).toBeGreaterThan(0);
      expect(result.responseBody).toMatch(/^y+$/);
      expect(took).toBeGreaterThanOrEqual(250);
      expect(took).toBeLessThan(300 + 1_000); // the timeout, plus room for a loaded machine
    }),
  );

  it(
    "refuses loopback unless private networks are allowed, by literal and by name",
    withSender({ allowPrivateNetworks: false }, async (sender) => {
      const before = seen.length;
      for (const url of [`${base}/ok`, base.replace("127.0.0.1", "localhost")]) {
        expect(await sender.send("hook_1", url, "{}", {}), url).toMatchObject({ ok: false, error: "blocked address", statusCode: null, receiverFault: false });
      }
      expect(seen.length).toBe(before);
    }),
  );

  it(
    "reports an attempt stopped by the caller as aborted, not as a failure",
    withSender({}, async (sender) => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      expect(await sender.send("hook_1", `${base}/slow`, "{}", {}, controller.signal)).toMatchObject({ aborted: true });
    }),
  );

  it("opens no more connections per hook than it may have requests in flight, and none shared between hooks", async () => {
    // Each socket's hooks, as the receiver saw them: a lane sends its next request as soon as
    // the last one is answered, which is when undici cannot reuse that socket yet.
    const hooksBySocket = new Map<object, Set<string>>();
    const receiver = http.createServer((req, res) => {
      const hooks = hooksBySocket.get(req.socket) ?? new Set<string>();
      hooksBySocket.set(req.socket, hooks.add(String(req.headers["x-hook"])));
      req.resume().on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const perHook = 4;
    const sender = createSender({ timeoutMs: 5_000, allowPrivateNetworks: true, connectionsPerHook: perHook });
    try {
      const lane = async (hookId: string) => {
        for (let i = 0; i < 50; i++) expect((await sender.send(hookId, url, "{}", { "x-hook": hookId })).statusCode).toBe(204);
      };
      await Promise.all(["hook_a", "hook_b"].flatMap((hookId) => Array.from({ length: perHook }, () => lane(hookId))));
      const sockets = [...hooksBySocket.values()];
      expect(sockets.every((hooks) => hooks.size === 1)).toBe(true);
      expect(sockets.filter((hooks) => hooks.has("hook_a")).length).toBeLessThanOrEqual(perHook);
      expect(sockets.filter((hooks) => hooks.has("hook_b")).length).toBeLessThanOrEqual(perHook);
    } finally {
      await sender.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("answers a hook at once while other hooks at the same host have every request hanging", async () => {
    // 17 hooks × 8 hanging requests: more than the 128 connections one pool per host had, which
    // left every other hook of that host waiting for a connection until the hanging ones timed out.
    const hanging: http.ServerResponse[] = [];
    const receiver = http.createServer((req, res) => {
      if (req.url === "/hang") hanging.push(res);
      else req.resume().on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const perHook = 8;
    const sender = createSender({ timeoutMs: 10_000, allowPrivateNetworks: true, connectionsPerHook: perHook });
    try {
      const stuck = Array.from({ length: 17 * perHook }, (_, i) => sender.send(`hook_hang${i % 17}`, `${origin}/hang`, "{}", {}));
      await expect.poll(() => hanging.length, { timeout: 5_000 }).toBe(17 * perHook);
      const healthy = await sender.send("hook_ok", `${origin}/ok`, "{}", {});
      expect(healthy).toMatchObject({ ok: true, statusCode: 204 });
      expect(healthy.durationMs).toBeLessThan(2_000);
      for (const res of hanging) res.writeHead(200).end();
      expect((await Promise.all(stuck)).every((result) => result.ok)).toBe(true);
    } finally {
      await sender.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
