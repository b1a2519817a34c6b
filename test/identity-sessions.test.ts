// Console sessions against a running system: the refresh cookie set at login with "remember",
// rotated on every refresh (a rotated-away value still works for the grace period, later it
// ends the session), logout, and a user's own list of sessions that they can end one by one.
import { decodeJwt } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@waybill/platform/ids.js";
import { loadEdgeConfig } from "../services/edge/config.js";
import { startEdge } from "../services/edge/service.js";
import { launchChromium } from "./support/browser.js";
import { eventually, expectProblem, request, type Answer } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

const ADMIN = { email: "admin@sessions.test", password: "admin-password-1" };
const MEMBER = { email: "member@sessions.test", password: "member-password-1" };
const OUTSIDER = { email: "outsider@sessions.test", password: "outsider-password-1" };
const GRACE_SECONDS = 2;
const COOKIE = "waybill_session";

let stack: Stack;
let db: pg.Client;

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      SESSION_REFRESH_GRACE_SECONDS: String(GRACE_SECONDS),
      LOGIN_RATE_LIMIT_PER_MINUTE: "1000",
    },
  });
  db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  expect((await api("/users", { token: stack.token, json: { ...MEMBER, role: "member" } })).status).toBe(201);
  // A user of another tenant.
  const tenantB = newId("ten");
  await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, 'tenant-b')", [tenantB]);
  const tokenB = (await issueToken(stack.env.databaseUrl, "api", { tenantId: tenantB })).token;
  expect((await api("/users", { token: tokenB, json: { ...OUTSIDER, role: "admin" } })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const api = (path: string, init: Parameters<typeof request>[1] = {}) => request(`${stack.baseUrl}${path}`, init);

interface Signed {
  accessToken: string;
  sid: string;
  /** The refresh value, when the answer set one. */
  cookie?: string;
  setCookie?: string;
}

function setCookieOf(answer: Answer): string | undefined {
  return answer.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
}

function signed(answer: Answer): Signed {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.headers.get("cache-control")).toBe("no-store");
  const setCookie = setCookieOf(answer);
  const value = setCookie ? /^waybill_session=([^;]*);/.exec(setCookie)?.[1] : undefined;
  return { accessToken: answer.body.accessToken, sid: decodeJwt(answer.body.accessToken).sid as string, cookie: value, setCookie };
}

const login = async (user: { email: string; password: string }, remember = true, userAgent = "sessions-test") =>
  signed(await api("/auth/login", { json: { ...user, remember }, headers: { "user-agent": userAgent } }));
const refresh = (value: string) => api("/auth/refresh", { method: "POST", headers: { cookie: `theme=dark; ${COOKIE}=${value}` } });
const logout = (value?: string) => api("/auth/logout", { method: "POST", headers: value ? { cookie: `${COOKIE}=${value}` } : {} });
const listSessions = async (token: string) => {
  const answer = await api("/auth/sessions", { token });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as {
    data: { id: string; current: boolean; userAgent: string | null; createdAt: string; lastUsedAt: string; expiresAt: string }[];
    nextCursor: null;
  };
};
/** The access token is refused once the session's end reached the edge (revocation broadcast). */
const refusedEventually = (token: string) =>
  eventually(async () => {
    const answer = await api("/products", { token });
    return answer.status === 401 ? answer : undefined;
  });

function expectExpiredAndCleared(answer: Answer): void {
  expectProblem(answer, 401, "session_expired");
  expect(setCookieOf(answer)).toBe(`${COOKIE}=; Max-Age=0; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict`);
}

describe("login with remember", () => {
  it("sets the refresh cookie with every attribute, and the access JWT names its session", async () => {
    const session = await login(ADMIN);
    expect(session.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [maxAge, ...attributes] = session.setCookie!.split("; ").slice(1);
    expect(attributes).toEqual(["Path=/v1/auth", "HttpOnly", "Secure", "SameSite=Strict"]);
    // SESSION_REFRESH_TTL_SECONDS (30 days), counted from identity's clock to the edge's.
    expect(Number(maxAge.replace("Max-Age=", ""))).toBeGreaterThan(30 * 24 * 3600 - 5);
    expect(Number(maxAge.replace("Max-Age=", ""))).toBeLessThanOrEqual(30 * 24 * 3600);
    expect(session.sid).toMatch(/^ses_[0-9a-z]{26}$/);
    expect((await api("/products", { token: session.accessToken })).status).toBe(200);
    // Only its hash is stored.
    const { rows } = await db.query("SELECT encode(refresh_hash, 'hex') AS hash FROM identity.sessions WHERE id = $1", [session.sid]);
    expect(rows[0].hash).toHaveLength(64);
    expect(JSON.stringify(rows)).not.toContain(session.cookie);
  });

  it("sets no cookie without remember, and the session still has an id", async () => {
    const session = await login(ADMIN, false);
    expect(session.setCookie).toBeUndefined();
    expect(session.sid).toMatch(/^ses_/);
  });
});

describe("refresh", () => {
  it("answers a working access token and a new cookie value for the same session", async () => {
    const first = await login(ADMIN);
    const next = signed(await refresh(first.cookie!));
    expect(next.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(next.cookie).not.toBe(first.cookie);
    expect(next.setCookie).toContain("; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict");
    expect(next.sid).toBe(first.sid);
    expect((await api("/products", { token: next.accessToken })).status).toBe(200);
    // And again with the new value.
    expect(signed(await refresh(next.cookie!)).sid).toBe(first.sid);
  });

  it("lets two tabs refresh with the same value at once", async () => {
    const session = await login(ADMIN);
    const answers = await Promise.all([refresh(session.cookie!), refresh(session.cookie!)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    // One of them rotated the value; the other answered an access token only.
    expect(answers.filter((a) => setCookieOf(a) !== undefined)).toHaveLength(1);
    for (const a of answers) expect((await api("/products", { token: a.body.accessToken })).status).toBe(200);
  });

  it("accepts the rotated-away value within the grace period, and after it ends the whole session", async () => {
    const session = await login(ADMIN);
    const rotated = signed(await refresh(session.cookie!));
    // Within the grace period: an access token, and no new cookie (the other answer set it).
    const again = signed(await refresh(session.cookie!));
    expect(again.setCookie).toBeUndefined();
    expect(again.sid).toBe(session.sid);

    await new Promise((r) => setTimeout(r, (GRACE_SECONDS + 1) * 1000));
    // Presented after the grace period: taken for a stolen copy.
    expectExpiredAndCleared(await refresh(session.cookie!));
    // The whole session ended: the current value too, and its access tokens.
    expectExpiredAndCleared(await refresh(rotated.cookie!));
    expectProblem(await refusedEventually(rotated.accessToken), 401, "session_revoked");
    const { rows } = await db.query("SELECT revoked_reason FROM identity.sessions WHERE id = $1", [session.sid]);
    expect(rows[0].revoked_reason).toBe("reuse");
  });

  it("answers 401 session_expired and clears the cookie when it is missing, unknown or malformed", async () => {
    expectExpiredAndCleared(await api("/auth/refresh", { method: "POST" }));
    expectExpiredAndCleared(await refresh("A".repeat(43)));
    expectExpiredAndCleared(await refresh("not-a-refresh-value"));
  });

  it("answers 401 session_expired once the session has expired", async () => {
    const session = await login(ADMIN);
    await db.query("UPDATE identity.sessions SET expires_at = now() - interval '1 second' WHERE id = $1", [session.sid]);
    expectExpiredAndCleared(await refresh(session.cookie!));
  });
});

describe("rate limits", () => {
  it("limits refreshes and logouts per client address, apart from logins", async () => {
    const edge = await startEdge(
      loadEdgeConfig({ ...stack.serviceEnv, HTTP_PORT: "0", OPS_PORT: "0", LOGIN_RATE_LIMIT_PER_MINUTE: "2", SESSION_RATE_LIMIT_PER_MINUTE: "3" }),
    );
    try {
      const at = (p: string, init: Parameters<typeof request>[1] = {}) => request(`${edge.url}/v1${p}`, init);
      const unknown = { method: "POST", headers: { cookie: `${COOKIE}=${"B".repeat(43)}` } };
      expect((await at("/auth/refresh", unknown)).status).toBe(401);
      expect((await at("/auth/logout", unknown)).status).toBe(204);
      expect((await at("/auth/refresh", unknown)).status).toBe(401);
      const limited = await at("/auth/refresh", unknown);
      expectProblem(limited, 429, "rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      // Logins have their own count.
      expect((await at("/auth/login", { json: ADMIN })).status).toBe(200);
    } finally {
      await edge.stop();
    }
  });
});

describe("logout", () => {
  it("ends the session, refuses its access tokens and clears the cookie; a second logout is harmless", async () => {
    const session = await login(ADMIN);
    const answer = await logout(session.cookie);
    expect(answer.status).toBe(204);
    expect(setCookieOf(answer)).toBe(`${COOKIE}=; Max-Age=0; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict`);
    expectExpiredAndCleared(await refresh(session.cookie!));
    expectProblem(await refusedEventually(session.accessToken), 401, "session_revoked");
    expect((await logout(session.cookie)).status).toBe(204);
    expect((await logout()).status).toBe(204);
  });
});

describe("a user's sessions", () => {
  it("lists the caller's live sessions, marking the current one", async () => {
    const desk = await login(MEMBER, true, "Desk browser");
    const phone = await login(MEMBER, true, "Phone browser");
    const { data, nextCursor } = await listSessions(desk.accessToken);
    expect(nextCursor).toBeNull();
    const byId = new Map(data.map((s) => [s.id, s]));
    expect(byId.get(desk.sid)).toMatchObject({ current: true, userAgent: "Desk browser" });
    expect(byId.get(phone.sid)).toMatchObject({ current: false, userAgent: "Phone browser" });
    expect(data.filter((s) => s.current)).toHaveLength(1);
    expect(new Date(byId.get(desk.sid)!.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    // Only the caller's own: none of the admin's.
    const admin = await login(ADMIN);
    expect(byId.has(admin.sid)).toBe(false);
  });

  it("ends another of the caller's sessions: its cookie and access tokens stop working", async () => {
    const desk = await login(MEMBER, true, "Desk browser");
    const phone = await login(MEMBER, true, "Phone browser");
    expect((await api(`/auth/sessions/${phone.sid}`, { method: "DELETE", token: desk.accessToken })).status).toBe(204);
    expectExpiredAndCleared(await refresh(phone.cookie!));
    expectProblem(await refusedEventually(phone.accessToken), 401, "session_revoked");
    expect((await listSessions(desk.accessToken)).data.map((s) => s.id)).not.toContain(phone.sid);
    expect((await api("/products", { token: desk.accessToken })).status).toBe(200);
  });

  it("answers 404 for another user's session or an unknown id, and 403 to an API token", async () => {
    const member = await login(MEMBER);
    const admin = await login(ADMIN);
    expectProblem(await api(`/auth/sessions/${admin.sid}`, { method: "DELETE", token: member.accessToken }), 404, "session_not_found");
    expectProblem(await api(`/auth/sessions/${newId("ses")}`, { method: "DELETE", token: member.accessToken }), 404, "session_not_found");
    expect(signed(await refresh(admin.cookie!)).sid).toBe(admin.sid);
    expectProblem(await api("/auth/sessions", { token: stack.token }), 403, "token_type_forbidden");
  });

  it("keeps tenants apart: another tenant's user neither sees nor ends them", async () => {
    const outsider = await login(OUTSIDER);
    const admin = await login(ADMIN);
    const { data } = await listSessions(outsider.accessToken);
    expect(data.map((s) => s.id)).toEqual([outsider.sid]);
    expectProblem(await api(`/auth/sessions/${admin.sid}`, { method: "DELETE", token: outsider.accessToken }), 404, "session_not_found");
    expect(signed(await refresh(admin.cookie!)).sid).toBe(admin.sid);
  });
});

describe("in Chromium", () => {
  // A tiny page on the edge's own origin (served by the browser's request interception), so the
  // cookie's SameSite=Strict and Path=/v1/auth apply as they do to the console.
  const PAGE = "<!doctype html><title>session check</title><p>session check</p>";

  it.each(["127.0.0.1", "localhost"])(
    "keeps the Secure, SameSite=Strict cookie on http://%s and refreshes after a reload",
    async (host) => {
      const origin = stack.edge.url.replace("127.0.0.1", host);
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.route(`${origin}/session-check`, (route) => route.fulfill({ contentType: "text/html", body: PAGE }));
        await page.goto(`${origin}/session-check`);
        const loginStatus = await page.evaluate(async (user) => {
          const answer = await fetch("/v1/auth/login", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...user, remember: true }),
          });
          return answer.status;
        }, MEMBER);
        expect(loginStatus).toBe(200);
        const [cookie] = (await context.cookies(`${origin}/v1/auth/refresh`)).filter((c) => c.name === COOKIE);
        expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict", path: "/v1/auth" });
        expect(await page.evaluate(() => document.cookie)).not.toContain(COOKIE);

        await page.reload();
        const afterReload = await page.evaluate(async () => {
          const refreshed = await fetch("/v1/auth/refresh", { method: "POST" });
          const { accessToken } = await refreshed.json();
          const sessions = await fetch("/v1/auth/sessions", { headers: { authorization: `Bearer ${accessToken}` } });
          return {
            refresh: refreshed.status,
            sessions: sessions.status,
            current: (await sessions.json()).data.filter((s: { current: boolean }) => s.current).length,
          };
        });
        expect(afterReload).toEqual({ refresh: 200, sessions: 200, current: 1 });
        const [rotated] = (await context.cookies(`${origin}/v1/auth/refresh`)).filter((c) => c.name === COOKIE);
        expect(rotated.value).not.toBe(cookie.value);

        const afterLogout = await page.evaluate(async () => {
          const loggedOut = await fetch("/v1/auth/logout", { method: "POST" });
          const refreshed = await fetch("/v1/auth/refresh", { method: "POST" });
          return { logout: loggedOut.status, refresh: refreshed.status };
        });
        expect(afterLogout).toEqual({ logout: 204, refresh: 401 });
        expect((await context.cookies(`${origin}/v1/auth/refresh`)).filter((c) => c.name === COOKIE)).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
