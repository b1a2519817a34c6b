// What an independent contract run (issue 33) found, checked against a running system: offsets
// PostgreSQL cannot store, the recover trigger, unknown products in a body, empty headers, the
// retry answer and unknown methods.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Call } from "./orders-fixtures.js";
import { eventually, expectProblem, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

let stack: Stack;
let call: Call;
let receiver: TestReceiver;
let logDir: string;
let logFile: string;
beforeAll(async () => {
  logDir = await mkdtemp(path.join(os.tmpdir(), "waybill-api-promises-"));
  logFile = path.join(logDir, "services.log");
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, LOG_LEVEL: "info", LOG_FILE: logFile } });
  call = client(stack);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  await rm(logDir, { recursive: true, force: true });
});

describe("POST /v1/tokens expiresAt", () => {
  it.each(["2030-01-01T00:00:00+16:00", "2030-01-01T00:00:00-23:59", "2030-06-01T12:30:00+23:59", "2030-01-01T00:00:00+15:59"])(
    "stores %s as the same instant in UTC",
    async (expiresAt) => {
      const answer = await call("/tokens", { json: { name: "offset", type: "cli", expiresAt } });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body.expiresAt).toBe(new Date(expiresAt).toISOString());
    },
  );

  it("answers 422 to an instant past the year 9999 once in UTC", async () => {
    expectProblem(await call("/tokens", { json: { name: "far", type: "cli", expiresAt: "9999-12-31T23:00:00-16:00" } }), 422, "validation_failed");
  });
});

describe("POST /v1/inventory/adjustments", () => {
  it("answers 422 unknown_product naming productId for a product the tenant does not have", async () => {
    const answer = await call("/inventory/adjustments", { json: { productId: "prd_01jc0000000000000000000000", delta: 1, reason: "count" } });
    expectProblem(answer, 422, "unknown_product");
    expect(answer.body.errors[0].path).toBe("productId");
  });
});

describe("empty headers are malformed, not absent", () => {
  it("answers 400 invalid_transaction_id to an empty X-Transaction-Id", async () => {
    expectProblem(await call("/orders", { headers: { "x-transaction-id": "" } }), 400, "invalid_transaction_id");
  });

  it("answers 400 invalid_idempotency_key to an empty Idempotency-Key", async () => {
    const answer = await call("/customers", { json: { name: "Empty Key" }, headers: { "idempotency-key": "" } });
    expectProblem(answer, 400, "invalid_idempotency_key");
    // Nothing was created under it.
    const names = (await call("/customers?limit=100")).body.data.map((c: { name: string }) => c.name);
    expect(names).not.toContain("Empty Key");
  });
});

describe("executions", () => {
  it("answers a retry 202 with JSON naming the hook, execution and event, and lists trigger recover", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "customer.created" });
    const test = await call(`/hooks/${hook.id}/test`, { method: "POST" });
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    const retry = await request(`${stack.baseUrl}/hooks/${hook.id}/executions/${test.body.id}/retry`, { method: "POST", token: stack.token });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("content-type")).toMatch(/^application\/json/);
    expect(retry.body).toEqual({ hookId: hook.id, executionId: test.body.id, eventId: test.body.eventId, queued: true });
    await receiver.waitFor(2);

    // An event that never reached the hook is redelivered by recover, as trigger "recover".
    const since = new Date(Date.now() - 1000).toISOString();
    await call(`/hooks/${hook.id}`, { method: "PUT", json: { status: "paused" } });
    expect((await call("/customers", { json: { name: "Missed" } })).status).toBe(201);
    await call(`/hooks/${hook.id}`, { method: "PUT", json: { status: "active" } });
    expect((await call(`/hooks/${hook.id}/recover`, { json: { since } })).status).toBe(202);
    const executions = await eventually(async () => {
      const data = (await call(`/hooks/${hook.id}/executions`)).body.data as { trigger: string }[];
      return data.some((e) => e.trigger === "recover") ? data : undefined;
    });
    expect(new Set(executions.map((e) => e.trigger))).toEqual(new Set(["test", "manual", "recover"]));
  });
});

describe("an unknown HTTP method", () => {
  function send(method: string, urlPath: string): Promise<{ status: number; allow?: string; type?: string; body: string }> {
    const url = new URL(stack.baseUrl);
    return new Promise((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method, path: urlPath, headers: { authorization: `Bearer ${stack.token}` } }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, allow: res.headers.allow, type: res.headers["content-type"], body }));
      });
      req.on("error", reject);
      req.end();
    });
  }

  it("is a client error: 405 with Allow on a known path, 404 elsewhere, logged at info without a stack", async () => {
    const known = await send("TRACE", "/v1/orders");
    expect(known.status).toBe(405);
    expect(known.allow).toContain("GET");
    expect(known.type).toContain("application/problem+json");
    expect(JSON.parse(known.body).code).toBe("method_not_allowed");
    const unknown = await send("TRACE", "/v1/nowhere");
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).code).toBe("route_not_found");
    const lines = await eventually(async () => {
      const text = await readFile(logFile, "utf8").catch(() => "");
      const found = text.split("\n").filter((line) => line.includes('"TRACE"'));
      return found.length >= 2 ? found : undefined;
    });
    for (const line of lines) {
      const entry = JSON.parse(line);
      expect(entry.level).toBeLessThanOrEqual(30); // info or below: never error
      expect(line).not.toContain("stack");
    }
  });
});
