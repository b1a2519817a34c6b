// Sessions, the token manager, permissions per credential, revocation everywhere, rate limits.
import http from "node:http";
import { SignJWT, generateKeyPair, importPKCS8 } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../services/edge/service.js";
import { eventually, request, type Answer, expectProblem } from "./support/http.js";
import { createSealedBox, parseSealingKey } from "@waybill/platform/sealed-box.js";
import { DEFAULT_AUTH_CACHE_TTL_MS } from "@waybill/contracts/identity-client/token-resolver.js";
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
    const { rows } = await db.query("SELECT kid, private_pem, private_sealed FROM identity.signing_keys");
    const { rows: users } = await db.query("SELECT id, tenant_id FROM identity.users");
    await db.end();
    // The signing key is stored sealed only; the test opens it with the stack's IDENTITY_SECRET_KEY.
    expect(rows[0].private_pem).toBeNull();
    const box = createSealedBox(parseSealingKey(stack.serviceEnv.IDENTITY_SECRET_KEY, "IDENTITY_SECRET_KEY"));
    const key = await importPKCS8(box.open(rows[0].private_sealed, rows[0].kid), "Ed25519");
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
    // Use is written behind (TOKEN_USE_FLUSH_INTERVAL_MS): wait until it shows.
    const listed = await eventually(async () => {
      const found = (await api("/tokens?limit=100", { token: stack.token })).body.data.find((t: { id: string }) => t.id === created.id);
      return found?.lastUsedAt ? (found as { id: string; lastUsedAt: string; token?: string }) : undefined;
    });
    expect(listed).toMatchObject({ id: created.id, type: "machine", revokedAt: null, lastUsedAt: expect.any(String) });
    expect(listed!.token).toBeUndefined();
    expect(JSON.stringify((await api("/tokens?limit=100", { token: stack.token })).body)).not.toContain(created.token);
  });

  it("refuses an expiry in the past and an unknown type", async () => {
    expectProblem(
      await api("/tokens", { token: stack.token, json: { name: "old", type: "api", expiresAt: "2001-01-01T00:00:00Z" } }),
      422,
      "validation_failed",
    );
    expectProblem(await api("/tokens", { token: stack.token, json: { name: "x", type: "root" } }), 422, "validation_failed");
  });

  it("a revoked token answers 401 on every edge that had it cached, without waiting for the cache to expire", async () => {
    // The second edge would trust its cached answer for 10 minutes: only the revocation can end it.
    const second: EdgeHandle = await startEdge(loadEdgeConfig({ ...stack.serviceEnv, HTTP_PORT: "0", AUTH_CACHE_TTL_MS: "600000" }));
    try {
      const victim = await createToken("api");
      // Both edges have it cached now.
      expect((await api("/products", { token: victim.token })).status).toBe(200);
      expect((await request(`${second.url}/v1/products`, { token: victim.token })).status).toBe(200);

      expect((await api(`/tokens/${victim.id}`, { method: "DELETE", token: stack.token })).status).toBe(204);
      for (const base of [stack.baseUrl, `${second.url}/v1`]) {
        const refused = await eventually(
          async () => {
            const answer = await request(`${base}/products`, { token: victim.token });
            return answer.status === 401 ? answer : undefined;
          },
          10_000,
          20,
        );
        expect(refused.body.code, base).toBe("token_revoked");
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
  // API.md: api — the whole API; machine — the whole API but token management (and so not
  // /users either: an admin user could mint tokens); cli — hooks, orders, shipments, products,
  // reads; sensor — POST /devices/{deviceId}/readings only. README "Identity and access".
  const hook = () => ({ name: `perm hook ${Math.random().toString(36).slice(2, 8)}`, url: "https://receiver.invalid/hook", on: "inventory.depleted" });
  const product = () => ({ sku: `PERM-${Math.random().toString(36).slice(2, 10).toUpperCase()}`, name: "Perm", price: "1.00", currency: "EUR" });
  const sku = () => Math.random().toString(36).slice(2, 10).toUpperCase();
  const reading = { channel: "telemetry", payload: { temperature: 4.5 } };

  async function expectRefused(token: string, attempts: [string, string][]) {
    for (const [method, path] of attempts) {
      const answer = await api(path, { method, token, ...(method === "POST" || method === "PUT" ? { json: {} } : {}) });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(403);
      expectProblem(answer, 403, "token_type_forbidden");
    }
  }

  async function expectStatus(answer: Answer, status: number, what: string) {
    expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(status);
    return answer.body;
  }

  /** A customer and a product with stock, made with the admin api token. */
  async function orderPrerequisites() {
    const customer = await expectStatus(await api("/customers", { token: stack.token, json: { name: "Perm Customer" } }), 201, "customer");
    const made = await expectStatus(await api("/products", { token: stack.token, json: product() }), 201, "product");
    await expectStatus(await api("/inventory/adjustments", { token: stack.token, json: { productId: made.id, delta: 10, reason: "count" } }), 201, "stock");
    return { customerId: customer.id as string, productId: made.id as string };
  }
  const orderBody = (customerId: string, productId: string) => ({
    shortId: `P-${sku()}`,
    customerId,
    currency: "EUR",
    orderItems: [{ productId, quantity: 1, price: "1.00" }],
  });

  const identityManagement: [string, string][] = [
    ["POST", "/tokens"],
    ["GET", "/tokens"],
    ["DELETE", "/tokens/tok_01jc0000000000000000000000"],
    ["POST", "/users"],
    ["GET", "/users"],
  ];

  it("api tokens may manage tokens and users", async () => {
    const { token } = await createToken("api");
    const made = await expectStatus(await api("/tokens", { token, json: { name: "made by api", type: "cli" } }), 201, "POST /tokens");
    const listed = await expectStatus(await api("/tokens?limit=100", { token }), 200, "GET /tokens");
    expect(listed.data.map((t: { id: string }) => t.id)).toContain(made.id);
    await expectStatus(await api(`/tokens/${made.id}`, { method: "DELETE", token }), 204, "DELETE /tokens");
    await expectStatus(await api("/users", { token, json: { email: "made-by-api@identity.test", password: "password-123" } }), 201, "POST /users");
    await expectStatus(await api("/users", { token }), 200, "GET /users");
    const { productId, customerId } = await orderPrerequisites();
    await expectStatus(await api("/orders", { token, json: orderBody(customerId, productId) }), 201, "POST /orders");
  });

  it("machine tokens may create orders, products, customers, hooks and adjust stock, but not manage tokens or users", async () => {
    const { token } = await createToken("machine");
    const customer = await expectStatus(await api("/customers", { token, json: { name: "Machine Customer" } }), 201, "POST /customers");
    const made = await expectStatus(await api("/products", { token, json: product() }), 201, "POST /products");
    await expectStatus(
      await api("/inventory/adjustments", { token, json: { productId: made.id, delta: 5, reason: "count" } }),
      201,
      "POST /inventory/adjustments",
    );
    await expectStatus(await api("/orders", { token, json: orderBody(customer.id, made.id) }), 201, "POST /orders");
    await expectStatus(await api("/hooks", { token, json: hook() }), 201, "POST /hooks");
    await expectStatus(await api(`/devices/machine-dev/readings`, { token, json: reading }), 202, "POST readings");
    for (const path of ["/products", "/orders", "/events", "/hooks", "/devices"]) await expectStatus(await api(path, { token }), 200, `GET ${path}`);
    await expectRefused(token, identityManagement);
  });

  it("cli tokens may create hooks, orders, shipments and products and read, but not adjust stock, write customers or manage tokens", async () => {
    const { token } = await createToken("cli");
    const { customerId } = await orderPrerequisites();
    const made = await expectStatus(await api("/products", { token, json: product() }), 201, "POST /products");
    await expectStatus(await api("/inventory/adjustments", { token: stack.token, json: { productId: made.id, delta: 3, reason: "count" } }), 201, "stock");
    const order = await expectStatus(await api("/orders", { token, json: orderBody(customerId, made.id) }), 201, "POST /orders");
    await expectStatus(await api(`/orders/${order.id}/status`, { token, json: { status: "ready" } }), 200, "order → ready");
    await expectStatus(await api(`/orders/${order.id}/shipments`, { token, json: { carrier: "DHL", trackingNumber: `CLI-${sku()}` } }), 201, "POST shipments");
    await expectStatus(await api("/hooks", { token, json: hook() }), 201, "POST /hooks");
    for (const path of ["/products", "/orders", "/shipments", "/customers", "/inventory", "/events", "/event-kinds", "/hooks", "/devices"]) {
      await expectStatus(await api(path, { token }), 200, `GET ${path}`);
    }
    await expectRefused(token, [
      ["POST", "/inventory/adjustments"],
      ["POST", "/customers"],
      ["PUT", `/customers/${customerId}`],
      ["POST", "/devices/cli-dev/readings"],
      ...identityManagement,
    ]);
  });

  it("sensor tokens may only send device readings", async () => {
    const { token } = await createToken("sensor");
    await expectStatus(await api("/devices/sensor-dev/readings", { token, json: reading }), 202, "POST readings");
    await expectRefused(token, [
      ["GET", "/products"],
      ["GET", "/orders"],
      ["POST", "/orders"],
      ["POST", "/products"],
      ["POST", "/hooks"],
      ["GET", "/events"],
      ["GET", "/devices"],
      ...identityManagement,
    ]);
  });
});

describe("token expiry", () => {
  it("a token that expires while the edge has it cached answers 401 token_expired once it expired, not when the cache does", async () => {
    const expiresAt = Date.now() + 2_000;
    const { token } = await createToken("api", { expiresAt: new Date(expiresAt).toISOString() });
    expect((await api("/products", { token })).status).toBe(200); // cached by the edge from now on
    // Asked until refused: every answer before the expiry is 200, the refusal comes after it, and
    // well before the edge's cache (AUTH_CACHE_TTL_MS, 30 s) would have let go of the token.
    const answers: { sentAt: number; answeredAt: number; status: number }[] = [];
    const refused = await eventually(
      async () => {
        const sentAt = Date.now();
        const answer = await api("/products", { token });
        answers.push({ sentAt, answeredAt: Date.now(), status: answer.status });
        return answer.status === 401 ? answer : undefined;
      },
      20_000,
      50,
    );
    expectProblem(refused, 401, "token_expired");
    // Answered before the expiry: served (from the cache). Refused: answered after it.
    expect(answers.filter((a) => a.answeredAt < expiresAt).every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.status !== 200).every((a) => a.answeredAt >= expiresAt)).toBe(true);
    expect(answers.at(-1)!.sentAt).toBeLessThan(expiresAt + DEFAULT_AUTH_CACHE_TTL_MS);
    expect((await api("/products", { token })).headers.get("www-authenticate")).toMatch(/^Bearer/);
  });
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

  it("limits logins per client address (LOGIN_RATE_LIMIT_PER_MINUTE): 429 with Retry-After, other addresses unaffected", async () => {
    const edge = await startEdge(loadEdgeConfig({ ...stack.serviceEnv, HTTP_PORT: "0", LOGIN_RATE_LIMIT_PER_MINUTE: "3" }));
    try {
      const login = (password: string) => request(`${edge.url}/v1/auth/login`, { json: { email: ADMIN.email, password } });
      expect((await login("wrong-password")).status).toBe(401);
      expect((await login("wrong-password")).status).toBe(401);
      expect((await login(ADMIN.password)).status).toBe(200);
      // The fourth attempt within the minute is refused, even with the right password.
      const limited = await login(ADMIN.password);
      expectProblem(limited, 429, "rate_limited");
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get("ratelimit-limit")).toBe("3");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      // Only logging in is limited: the same address keeps using the API with its token.
      expect((await request(`${edge.url}/v1/products`, { token: stack.token })).status).toBe(200);
      // Another client address has its own budget.
      const other = await postFrom("127.0.0.2", `${edge.url}/v1/auth/login`, { email: ADMIN.email, password: ADMIN.password });
      expect(other.status).toBe(200);
    } finally {
      await edge.stop();
    }
  });
});

/** POSTs JSON from a chosen local address (any 127.x address works on loopback). */
function postFrom(localAddress: string, url: string, json: unknown): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(json);
    const req = http.request(
      url,
      { method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
