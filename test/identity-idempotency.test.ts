// Idempotency-Key on POST /tokens and POST /users: replays without storing secrets.
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../services/edge/route.js";
import { request, expectProblem } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let db: pg.Client;

beforeAll(async () => {
  stack = await startStack();
  db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const api = (path: string, init: Parameters<typeof request>[1] = {}) => request(`${stack.baseUrl}${path}`, init);

async function storedRecords(scope: string, key: string) {
  const { rows } = await db.query<{ request_hash: string; response: unknown }>(
    "SELECT request_hash, response FROM identity.idempotency_keys WHERE scope = $1 AND key = $2",
    [scope, key],
  );
  return rows;
}

describe("POST /tokens with Idempotency-Key", () => {
  it("replays the first answer's metadata without the token value, creating one token only", async () => {
    const json = { name: "idempotent token", type: "machine", expiresAt: new Date(Date.now() + 3600_000).toISOString() };
    const headers = { "idempotency-key": "token-create-1" };
    const first = await api("/tokens", { token: stack.token, json, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(first.body.token).toMatch(/^machine-[A-Za-z0-9_-]{43}$/);

    const again = await api("/tokens", { token: stack.token, json, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("cache-control")).toBe("no-store");
    const { token: value, ...metadata } = first.body;
    expect(again.body).toEqual(metadata);
    expect(again.body).not.toHaveProperty("token");
    expect(metadata).toEqual({
      id: expect.stringMatching(/^tok_/),
      name: json.name,
      type: "machine",
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });

    const listed = (await api("/tokens?limit=100", { token: stack.token })).body.data.filter((t: { name: string }) => t.name === json.name);
    expect(listed.map((t: { id: string }) => t.id)).toEqual([first.body.id]);
    // The value handed out first still works, and was stored nowhere but as its hash.
    expect((await api("/products", { token: value })).status).toBe(200);
    const records = await storedRecords("tokens.create", headers["idempotency-key"]);
    expect(records).toHaveLength(1);
    expect(JSON.stringify(records)).not.toContain(value);
    expect(JSON.stringify(records)).not.toContain(value.slice("machine-".length));
  });

  it("refuses the same key with another body (422 idempotency_key_reused) and creates nothing", async () => {
    const headers = { "idempotency-key": "token-create-2" };
    const first = await api("/tokens", { token: stack.token, json: { name: "first body", type: "cli" }, headers });
    expect(first.status).toBe(201);
    expectProblem(await api("/tokens", { token: stack.token, json: { name: "second body", type: "cli" }, headers }), 422, "idempotency_key_reused");
    const names = (await api("/tokens?limit=100", { token: stack.token })).body.data.map((t: { name: string }) => t.name);
    expect(names).toContain("first body");
    expect(names).not.toContain("second body");
  });
});

describe("POST /users with Idempotency-Key", () => {
  it("replays the first answer (201, same user) and keeps no password in the record", async () => {
    const json = { email: "idem-user@identity.test", password: "idem-password-1", role: "member" };
    const headers = { "idempotency-key": "user-create-1" };
    const first = await api("/users", { token: stack.token, json, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await api("/users", { token: stack.token, json, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(first.body).toEqual({ id: expect.stringMatching(/^usr_/), email: json.email, role: "member", createdAt: expect.any(String) });

    const users = (await api("/users?limit=100", { token: stack.token })).body.data.filter((u: { email: string }) => u.email === json.email);
    expect(users.map((u: { id: string }) => u.id)).toEqual([first.body.id]);
    expect((await api("/auth/login", { json: { email: json.email, password: json.password } })).status).toBe(200);

    const records = await storedRecords("users.create", headers["idempotency-key"]);
    expect(records).toHaveLength(1);
    expect(records[0].response).toEqual(first.body);
    expect(JSON.stringify(records)).not.toContain(json.password);
    // Not even the edge's plain SHA-256 of the body (which covers the password) is kept as it is.
    const edgeHash = createHash("sha256")
      .update(`post /v1/users\n${canonicalJson(json)}`)
      .digest("hex");
    expect(records[0].request_hash).not.toBe(edgeHash);
  });

  it("refuses the same key with another body (422 idempotency_key_reused)", async () => {
    const headers = { "idempotency-key": "user-create-2" };
    const json = { email: "idem-user-2@identity.test", password: "idem-password-2", role: "member" };
    expect((await api("/users", { token: stack.token, json, headers })).status).toBe(201);
    expectProblem(await api("/users", { token: stack.token, json: { ...json, password: "another-password" }, headers }), 422, "idempotency_key_reused");
    expectProblem(await api("/users", { token: stack.token, json: { ...json, email: "idem-user-3@identity.test" }, headers }), 422, "idempotency_key_reused");
    const emails = (await api("/users?limit=100", { token: stack.token })).body.data.map((u: { email: string }) => u.email);
    expect(emails).not.toContain("idem-user-3@identity.test");
    // The same body in another order of keys is the same request.
    const reordered = await api("/users", { token: stack.token, json: { role: "member", password: json.password, email: json.email }, headers });
    expect(reordered.status).toBe(201);
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
  });
});
