// /v1/hooks: the API surface of API.md "Webhooks" (create, list, get, PUT, DELETE, rotate, test,
// executions, retry), its validation, capabilities, idempotency, tenant isolation and the
// encryption of secrets at rest.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hook, ProblemFieldError } from "@waybill/sdk";
import { client, otherTenant, type Call } from "./orders-fixtures.js";
import { request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";
import { createHook, executionsOf, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";
import { verifyWebhook } from "../services/receiver/verify.js";

let stack: Stack;
let call: Call;
let receiver: TestReceiver;
beforeAll(async () => {
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS } });
  call = client(stack);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const HOOK_FIELDS = ["id", "name", "url", "on", "status", "ordering", "successCount", "errorCount", "lastRunAt", "disabledReason", "createdAt", "updatedAt"];

describe("POST /v1/hooks", () => {
  it("creates an active hook and shows its whsec_ secret only in this answer", async () => {
    const answer = await call("/hooks", { json: { name: "Orders", url: receiver.url, on: "order.created" } });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body).sort()).toEqual([...HOOK_FIELDS, "secret", "secretLastRotatedAt"].sort());
    expect(answer.body).toMatchObject({
      name: "Orders",
      url: receiver.url,
      on: "order.created",
      status: "active",
      successCount: 0,
      errorCount: 0,
      lastRunAt: null,
    });
    expect(answer.body.id).toMatch(/^hook_[0-9a-z]{26}$/);
    expect(answer.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(answer.body.secret.slice(6), "base64")).toHaveLength(32);
    expect(answer.body.secretLastRotatedAt).toMatch(/Z$/);
    expect(answer.headers.get("location")).toBe(`/v1/hooks/${answer.body.id}`);

    const read = await call(`/hooks/${answer.body.id}`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual([...HOOK_FIELDS].sort());
    const listed = await call("/hooks");
    expect(listed.body.data.find((h: Hook) => h.id === answer.body.id)).not.toHaveProperty("secret");
  });

  it("refuses what is not a hook with 422 and the field at fault", async () => {
    const cases: [unknown, string][] = [
      [{ name: "x", url: receiver.url, on: "order.nope" }, "on"],
      [{ name: "x", url: "ftp://example.com/x", on: "order.created" }, "url"],
      [{ name: "x", url: "not a url", on: "order.created" }, "url"],
      [{ name: "x", url: "https://user:pw@example.com/", on: "order.created" }, "url"],
      [{ name: "", url: receiver.url, on: "order.created" }, "name"],
      [{ url: receiver.url, on: "order.created" }, "name"],
      [{ name: "x", url: receiver.url, on: "order.created", secret: "mine" }, ""],
    ];
    for (const [body, path] of cases) {
      const answer = await call("/hooks", { json: body });
      expect(answer.status, JSON.stringify(body)).toBe(422);
      expect(answer.headers.get("content-type")).toContain("application/problem+json");
      expect(answer.body.code).toBe("validation_failed");
      expect(answer.body.errors.map((e: ProblemFieldError) => e.path)).toContain(path);
    }
  });

  it("replays the first answer for the same Idempotency-Key and refuses another body under it", async () => {
    const json = { name: "Idem", url: receiver.url, on: "order.updated" };
    const headers = { "idempotency-key": "hook-create-1" };
    const first = await call("/hooks", { json, headers });
    const again = await call("/hooks", { json, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const other = await call("/hooks", { json: { ...json, name: "Other" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
  });
});

describe("GET, PUT, DELETE /v1/hooks/{id}", () => {
  it("lists newest first with a cursor", async () => {
    const a = await createHook(call, { url: receiver.url, on: "product.created" });
    const b = await createHook(call, { url: receiver.url, on: "product.updated" });
    const first = await call("/hooks?limit=1");
    expect(first.body.data.map((h: Hook) => h.id)).toEqual([b.id]);
    const second = await call(`/hooks?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((h: Hook) => h.id)).toEqual([a.id]);
    expect((await call("/hooks?limit=0")).status).toBe(400);
    expect((await call("/hooks?cursor=bogus")).status).toBe(400);
  });

  it("changes any of name, url, on, status and refuses bad values", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const changed = await call(`/hooks/${hook.id}`, {
      method: "PUT",
      json: { name: "Renamed", on: "order.cancelled", status: "paused", url: `${receiver.url}?v=2` },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: hook.id, name: "Renamed", on: "order.cancelled", status: "paused", url: `${receiver.url}?v=2` });
    expect(changed.body.updatedAt >= hook.updatedAt).toBe(true);
    expect((await call(`/hooks/${hook.id}`, { method: "PUT", json: { status: "stopped" } })).status).toBe(422);
    expect((await call(`/hooks/${hook.id}`, { method: "PUT", json: { on: "nope" } })).status).toBe(422);
    expect((await call(`/hooks/${hook.id}`, { method: "PUT", json: {} })).status).toBe(422);
    const broken = await request(`${stack.baseUrl}/hooks/${hook.id}`, {
      method: "PUT",
      token: stack.token,
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
  });

  it("deletes with 204, after which the hook is 404", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    expect((await call(`/hooks/${hook.id}`, { method: "DELETE" })).status).toBe(204);
    const gone = await call(`/hooks/${hook.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe("hook_not_found");
    expect((await call(`/hooks/${hook.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await call(`/hooks/not-a-hook`)).status).toBe(404);
  });

  it("deletes the hook's executions with it", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    expect((await call(`/hooks/${hook.id}/test`, { method: "POST" })).status).toBe(200);
    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    try {
      const count = async () => (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM dispatcher.executions WHERE hook_id = $1", [hook.id])).rows[0].n;
      expect(await count()).toBe(1);
      expect((await call(`/hooks/${hook.id}`, { method: "DELETE" })).status).toBe(204);
      expect(await count()).toBe(0);
    } finally {
      await db.end();
    }
  });
});

describe("POST /v1/hooks/{id}/test and executions", () => {
  it("lists no executions of a hook never attempted as an empty page, and none of a hook that does not exist", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const empty = await call(`/hooks/${hook.id}/executions`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [], nextCursor: null });
    const missing = await call("/hooks/hook_01jc0000000000000000000000/executions");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("hook_not_found");
  });

  it("delivers a signed webhook.test event synchronously and answers its execution record", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const before = receiver.received.length;
    const answer = await call(`/hooks/${hook.id}/test`, { method: "POST" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      hookId: hook.id,
      eventKind: "webhook.test",
      trigger: "test",
      attempt: 1,
      url: receiver.url,
      outcome: "succeeded",
      statusCode: 200,
      responseBody: "ok",
      error: null,
      nextAttemptAt: null,
    });
    expect(answer.body.id).toMatch(/^exe_/);
    expect(answer.body.responseHeaders["content-type"]).toBe("text/plain");
    expect(answer.body.durationMs).toEqual(expect.any(Number));

    const delivered = receiver.received[before];
    expect(delivered.json).toEqual({
      id: answer.body.eventId,
      kind: "webhook.test",
      time: expect.stringMatching(/Z$/),
      transactionId: expect.stringMatching(/^txn_/),
      hookId: hook.id,
    });
    expect(delivered.headers["x-service-webhook-id"]).toBe(hook.id);
    expect(verifyWebhook(hook.secret, delivered.headers["x-service-signature"], delivered.rawBody)).toMatchObject({ ok: true });

    const executions = await executionsOf(call, hook.id);
    expect(executions).toEqual([answer.body]);
    const read = await call(`/hooks/${hook.id}`);
    expect(read.body).toMatchObject({ successCount: 1, errorCount: 0, lastRunAt: answer.body.requestedAt });
  });

  it("retries an execution on request (202, trigger manual, the same event)", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const tested = (await call(`/hooks/${hook.id}/test`, { method: "POST" })).body;
    const before = receiver.received.length;
    const retried = await call(`/hooks/${hook.id}/executions/${tested.id}/retry`, { method: "POST" });
    expect(retried.status).toBe(202);
    const [again] = (await receiver.waitFor(before + 1)).slice(before);
    expect(again.json.id).toBe(tested.eventId);
    const manual = await (async () => {
      for (;;) {
        const list = await executionsOf(call, hook.id);
        if (list.length === 2) return list[0];
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    expect(manual).toMatchObject({ trigger: "manual", attempt: 1, eventId: tested.eventId, outcome: "succeeded", nextAttemptAt: null });
    expect((await call(`/hooks/${hook.id}/executions/exe_01jc0000000000000000000000/retry`, { method: "POST" })).status).toBe(404);
  });

  it("refuses test deliveries and retries of a paused hook with 409 hook_paused", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const tested = (await call(`/hooks/${hook.id}/test`, { method: "POST" })).body;
    await call(`/hooks/${hook.id}`, { method: "PUT", json: { status: "paused" } });
    const test = await call(`/hooks/${hook.id}/test`, { method: "POST" });
    expect(test.status).toBe(409);
    expect(test.body.code).toBe("hook_paused");
    expect((await call(`/hooks/${hook.id}/executions/${tested.id}/retry`, { method: "POST" })).status).toBe(409);
  });
});

describe("POST /v1/hooks/{id}/rotate", () => {
  it("answers a new secret and rotation time; the hook signs with the new one only", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const rotated = await call(`/hooks/${hook.id}/rotate`, { method: "POST" });
    expect(rotated.status).toBe(200);
    expect(Object.keys(rotated.body).sort()).toEqual(["secret", "secretLastRotatedAt"]);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    expect(rotated.body.secretLastRotatedAt >= hook.secretLastRotatedAt).toBe(true);
    const before = receiver.received.length;
    expect((await call(`/hooks/${hook.id}/test`, { method: "POST" })).body.outcome).toBe("succeeded");
    const delivered = receiver.received[before];
    expect(verifyWebhook(rotated.body.secret, delivered.headers["x-service-signature"], delivered.rawBody).ok).toBe(true);
    expect(verifyWebhook(hook.secret, delivered.headers["x-service-signature"], delivered.rawBody).ok).toBe(false);
  });
});

describe("secrets at rest", () => {
  it("stores neither the secret nor its base64 body in the clear (hooks nor idempotency records)", async () => {
    const created = await call("/hooks", { json: { name: "At rest", url: receiver.url, on: "order.created" }, headers: { "idempotency-key": "at-rest-1" } });
    const rotated = await call(`/hooks/${created.body.id}/rotate`, { method: "POST" });
    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query("SELECT row_to_json(h)::text AS row, secret_sealed FROM dispatcher.hooks h WHERE id = $1", [created.body.id]);
      const { rows: keys } = await db.query("SELECT response::text AS response FROM dispatcher.idempotency_keys WHERE key = 'at-rest-1'");
      expect(keys).toHaveLength(1);
      for (const secret of [created.body.secret, rotated.body.secret]) {
        const body = secret.slice("whsec_".length);
        expect(rows[0].row).not.toContain(body);
        expect(keys[0].response).not.toContain(body);
      }
      expect(rows[0].secret_sealed).toMatch(/^v1\./);
    } finally {
      await db.end();
    }
  });
});

describe("access", () => {
  it("lets a cli token write hooks, a sensor token nothing; reads need read", async () => {
    const cli = await issueToken(stack.env.databaseUrl, "cli");
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const json = { name: "cli hook", url: receiver.url, on: "order.created" };
    expect((await request(`${stack.baseUrl}/hooks`, { token: cli.token, json })).status).toBe(201);
    expect((await request(`${stack.baseUrl}/hooks`, { token: sensor.token, json })).status).toBe(403);
    expect((await request(`${stack.baseUrl}/hooks`, { token: sensor.token })).status).toBe(403);
    expect((await request(`${stack.baseUrl}/hooks`)).status).toBe(401);
  });

  it("answers 404 for another tenant's hook and its executions", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "order.created" });
    const tested = (await call(`/hooks/${hook.id}/test`, { method: "POST" })).body;
    const other = client(stack, (await otherTenant(stack)).token);
    for (const [method, path, json] of [
      ["GET", `/hooks/${hook.id}`],
      ["PUT", `/hooks/${hook.id}`, { name: "mine now" }],
      ["DELETE", `/hooks/${hook.id}`],
      ["POST", `/hooks/${hook.id}/rotate`],
      ["POST", `/hooks/${hook.id}/test`],
      ["GET", `/hooks/${hook.id}/executions`],
      ["POST", `/hooks/${hook.id}/executions/${tested.id}/retry`],
    ] as const) {
      const answer = await other(path, { method, json });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect((await other("/hooks")).body.data).toEqual([]);
    expect((await call(`/hooks/${hook.id}`)).body.name).toBe(hook.name);
  });
});
