// Sessions, the token manager, permissions per credential, revocation everywhere, rate limits.
import { SignJWT, generateKeyPair, importPKCS8 } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../services/edge/service.js";
import { request, type Answer } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

const ADMIN = { email: "admin@identity.test", password: "admin-password-1" };
let stack: Stack;
let adminJwt: string;

beforeAll(async () => {
  stack = await startStack({ extraEnv: { BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, TOKEN_USE_FLUSH_INTERVAL_MS: "100" } });
  const login = await request(`${stack.baseUrl}/auth/login`, { json: ADMIN });
  expect(login.status).toBe(200);
  adminJwt = login.body.accessToken;
});
afterAll(async () => {
  await stack?.stop();
});

const api = (path: string, init: Parameters<typeof request>[1] = {}) => request(`${stack.baseUrl}${path}`, init);

function expectProblem(answer: Answer, status: number, code: string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers.get("content-type")).toContain("application/problem+json");
  expect(answer.body.code).toBe(code);
}

async function createToken(type: string, extra: Record<string, unknown> = {}) {
  const answer = await api("/tokens", { token: stack.token, json: { name: `${type} token`, type, ...extra } });
  expect(answer.status).toBe(201);
  return answer.body as { id: string; token: string; type: string };
}

describe("sessions", () => {
  it("logs in with email and password and answers a short-lived bearer JWT", async () => {
    const login = await api("/auth/login", { json: { email: ADMIN.email.toUpperCase(), password: ADMIN.password } });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ tokenType: "Bearer", accessToken: expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+$/) });
    const ttl = new Date(login.body.expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(10 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(15 * 60 * 1000);
    expect((await api("/products", { token: login.body.accessToken })).status).toBe(200);
  });

  it("refuses a wrong password and an unknown email alike", async () => {
    expectProblem(await api("/auth/login", { json: { ...ADMIN, password: "wrong-password" } }), 401, "invalid_credentials");
    expectProblem(await api("/auth/login", { json: { email: "nobody@identity.test", password: "whatever-1" } }), 401, "invalid_credentials");
    expectProblem(await api("/auth/login", { json: { email: "not-an-email" } }), 422, "validation_failed");
  });

  it("answers 401 to a JWT signed with another key and to an expired one", async () => {
    const { privateKey } = await generateKeyPair("Ed25519");
    const forged = await new SignJWT({ tid: "ten_x", role: "admin" })
      .setProtectedHeader({ alg: "Ed25519" })
      .setSubject("usr_x")
      .setIssuer("waybill-identity")
      .setAudience("waybill-api")
      .setExpirationTime("10m")
      .sign(privateKey);
    expectProblem(await api("/products", { token: forged }), 401, "invalid_session");

    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    const { rows } = await db.query("SELECT kid, private_pem FROM identity.signing_keys");
    const { rows: users } = await db.query("SELECT id, tenant_id FROM identity.users");
    await db.end();
    const key = await importPKCS8(rows[0].private_pem, "Ed25519");
    const expired = await new SignJWT({ tid: users[0].tenant_id, role: "admin" })
      .setProtectedHeader({ alg: "Ed25519", kid: rows[0].kid })
      .setSubject(users[0].id)
      .setIssuer("waybill-identity")
      .setAudience("waybill-api")
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key);
    expectProblem(await api("/products", { token: expired }), 401, "session_expired");
  });

  it("lets an admin create a member, who may work but not manage tokens or users", async () => {
    const created = await api("/users", { token: adminJwt, json: { email: "member@identity.test", password: "member-password-1", role: "member" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: "member@identity.test", role: "member" });
    expect(created.body.password).toBeUndefined();
    expectProblem(await api("/users", { token: adminJwt, json: { email: "member@identity.test", password: "another-password" } }), 409, "duplicate_email");

    const member = (await api("/auth/login", { json: { email: "member@identity.test", password: "member-password-1" } })).body.accessToken;
    expect((await api("/products", { token: member })).status).toBe(200);
    expectProblem(await api("/tokens", { token: member, json: { name: "x", type: "api" } }), 403, "role_forbidden");
    expectProblem(await api("/users", { token: member }), 403, "role_forbidden");
  });
});

describe("token manager", () => {
  it("creates a token shown once, lists it without its value, and records its use behind", async () => {
    const created = await createToken("machine", { expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect(created.token).toMatch(/^machine-[A-Za-z0-9_-]{43}$/);
    expect((await api("/products", { token: created.token })).status).toBe(200);
    let listed: { id: string; lastUsedAt: string | null; token?: string } | undefined;
    const deadline = Date.now() + 5_000;
    do {
      await new Promise((r) => setTimeout(r, 150));
      listed = (await api("/tokens?limit=100", { token: stack.token })).body.data.find((t: { id: string }) => t.id === created.id);
    } while (!listed?.lastUsedAt && Date.now() < deadline);
    expect(listed).toMatchObject({ id: created.id, type: "machine", revokedAt: null, lastUsedAt: expect.any(String) });
    expect(listed!.token).toBeUndefined();
    expect(JSON.stringify((await api("/tokens?limit=100", { token: stack.token })).body)).not.toContain(created.token);
  });

  it("refuses an expiry in the past and an unknown type", async () => {
    expectProblem(await api("/tokens", { token: stack.token, json: { name: "old", type: "api", expiresAt: "2001-01-01T00:00:00Z" } }), 422, "validation_failed");
    expectProblem(await api("/tokens", { token: stack.token, json: { name: "x", type: "root" } }), 422, "validation_failed");
  });

  it("a revoked token answers 401 within a second, on a second edge too", async () => {
    const second: EdgeHandle = await startEdge(loadEdgeConfig({ ...stack.serviceEnv, HTTP_PORT: "0" }));
    try {
      const victim = await createToken("api");
      // Both edges have it cached now.
      expect((await api("/products", { token: victim.token })).status).toBe(200);
      expect((await request(`${second.url}/v1/products`, { token: victim.token })).status).toBe(200);

      expect((await api(`/tokens/${victim.id}`, { method: "DELETE", token: stack.token })).status).toBe(204);
      const revokedAt = Date.now();
      for (const base of [stack.baseUrl, `${second.url}/v1`]) {
        let status = 0;
        while (Date.now() - revokedAt < 1_000) {
          status = (await request(`${base}/products`, { token: victim.token })).status;
          if (status === 401) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(status, base).toBe(401);
      }
      const listed = (await api("/tokens?limit=100", { token: stack.token })).body.data.find((t: { id: string }) => t.id === victim.id);
      expect(listed.revokedAt).toEqual(expect.any(String));
      expectProblem(await api(`/tokens/tok_01jc0000000000000000000000`, { method: "DELETE", token: stack.token }), 404, "token_not_found");
    } finally {
      await second.stop();
    }
  });
});

describe("permissions per token type", () => {
  // What API.md grants each type, checked against real endpoints.
  const cases: { type: string; allowed: [string, string][]; refused: [string, string][] }[] = [
    { type: "api", allowed: [["GET", "/products"], ["GET", "/tokens"], ["GET", "/users"]], refused: [] },
    { type: "machine", allowed: [["GET", "/products"], ["GET", "/events"]], refused: [["GET", "/tokens"], ["POST", "/tokens"], ["GET", "/users"]] },
    { type: "cli", allowed: [["GET", "/products"], ["GET", "/events"]], refused: [["GET", "/tokens"], ["POST", "/inventory/adjustments"], ["POST", "/customers"]] },
    { type: "sensor", allowed: [], refused: [["GET", "/products"], ["GET", "/orders"], ["POST", "/orders"], ["GET", "/tokens"], ["GET", "/events"]] },
  ];
  for (const { type, allowed, refused } of cases) {
    it(`${type} tokens`, async () => {
      const { token } = await createToken(type);
      for (const [method, path] of allowed) expect((await api(path, { method, token })).status, `${method} ${path}`).toBe(200);
      for (const [method, path] of refused) {
        const answer = await api(path, { method, token, ...(method === "POST" ? { json: {} } : {}) });
        expectProblem(answer, 403, "token_type_forbidden");
      }
    });
  }
});

describe("rate limits", () => {
  it("answers 429 with Retry-After and RateLimit headers past the limit of a credential", async () => {
    const edge = await startEdge(loadEdgeConfig({ ...stack.serviceEnv, HTTP_PORT: "0", RATE_LIMIT_REQUESTS: "3", RATE_LIMIT_WINDOW_SECONDS: "60" }));
    try {
      const statuses: number[] = [];
      let last: Answer | undefined;
      for (let i = 0; i < 4; i += 1) {
        last = await request(`${edge.url}/v1/products`, { token: stack.token });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expectProblem(last!, 429, "rate_limited");
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(last!.headers.get("ratelimit-limit")).toBe("3");
      expect(last!.headers.get("ratelimit-remaining")).toBe("0");
      // Another credential has its own budget.
      const { token } = await createToken("api");
      expect((await request(`${edge.url}/v1/products`, { token })).status).toBe(200);
    } finally {
      await edge.stop();
    }
  });
});
