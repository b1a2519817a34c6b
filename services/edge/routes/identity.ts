// /v1/auth (login, the refresh cookie, the user's sessions), /v1/tokens and /v1/users: thin
// adapters to the identity service; the refresh cookie is handled here (session-cookie.ts).
import type { RouterContext } from "@koa/router";
import type { IdentityServiceClient, Session, Token } from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import type { Principal } from "@waybill/contracts/identity-client/token-resolver.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { AppError } from "@waybill/platform/errors.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { route, type Api, type Reply } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import {
  createdTokenOutput,
  createTokenBody,
  createUserBody,
  loginBody,
  loginOutput,
  sessionListOutput,
  tokenOutput,
  userOutput,
} from "../schemas/identity.js";
import { clearedSessionCookie, readSessionCookie, sessionCookie } from "../session-cookie.js";

/**
 * The access token, and the refresh cookie when identity gave a value (login with remember, a
 * refresh; not a refresh whose value another tab rotated a moment ago: that tab's answer sets it).
 */
function accessAnswer(session: { accessToken: string; expiresAt: string; refreshValue?: string; refreshExpiresAt?: string }): Reply {
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (session.refreshValue && session.refreshExpiresAt) headers["Set-Cookie"] = sessionCookie(session.refreshValue, session.refreshExpiresAt);
  return { body: { accessToken: session.accessToken, tokenType: "Bearer", expiresAt: session.expiresAt }, headers };
}
const userAgentOf = (ctx: RouterContext) => ctx.get("user-agent") || undefined;

/** A 401 session_expired that also makes the browser drop its refresh cookie. */
function expiredClearingCookie(error?: unknown): AppError {
  const answer = error instanceof AppError ? error : appError("session_expired", "There is no session to refresh; log in again.");
  if (answer.status === 401) Object.assign(answer.headers, { "Set-Cookie": clearedSessionCookie() });
  return answer;
}

/** The open session endpoints: login, and the console's refresh and logout by cookie. */
export function sessionRoutes(api: Api, identity: IdentityServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/auth/login",
      summary: "Exchange email and password for a session JWT",
      description:
        "With `remember: true` the answer also sets the refresh cookie `waybill_session` (HttpOnly; Secure; SameSite=Strict; " +
        "Path=/v1/auth; Max-Age of the session's lifetime), which POST /v1/auth/refresh exchanges for new access tokens.",
      tag: "auth",
      capability: "public",
      errors: ["invalid_credentials"],
      body: loginBody,
      response: loginOutput,
    },
    async ({ body }, ctx) => {
      const session = await callUnary(identity.login.bind(identity), {
        email: body.email,
        password: body.password,
        remember: body.remember ?? false,
        userAgent: userAgentOf(ctx),
      });
      return accessAnswer(session);
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/auth/refresh",
      summary: "Exchange the refresh cookie for a new session JWT (and a new cookie)",
      description:
        "Sends no Authorization header: the browser sends the `waybill_session` cookie that a login with `remember: true` set. " +
        "The answer carries a new access token and replaces the cookie's value (the old one keeps working for a few seconds, " +
        "for two tabs refreshing at once; presented later it ends the session). A missing, unknown, expired or revoked cookie " +
        "is a 401 `session_expired` that also clears the cookie.",
      tag: "auth",
      capability: "public",
      errors: ["session_expired"],
      response: loginOutput,
    },
    async (_input, ctx) => {
      const value = readSessionCookie(ctx.get("cookie"));
      if (!value) throw expiredClearingCookie();
      const session = await callUnary(identity.refreshSession.bind(identity), { refreshValue: value, userAgent: userAgentOf(ctx) }).catch((error) => {
        throw expiredClearingCookie(error);
      });
      return accessAnswer(session);
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/auth/logout",
      summary: "End the session of the refresh cookie and clear the cookie",
      description:
        "Revokes the `waybill_session` cookie's session (its access tokens stop working too) and clears the cookie. Without a cookie it only clears it.",
      tag: "auth",
      capability: "public",
      status: 204,
    },
    async (_input, ctx) => {
      const value = readSessionCookie(ctx.get("cookie"));
      if (value) await callUnary(identity.logout.bind(identity), { refreshValue: value });
      return { headers: { "Set-Cookie": clearedSessionCookie() } };
    },
  );
}

const sessionOut = (s: Session) => ({ ...s, userAgent: s.userAgent ?? null });

/** The signed-in user's own sessions (Bearer session JWT). */
export function ownSessionsRoutes(api: Api, identity: IdentityServiceClient): void {
  route(
    api,
    {
      method: "get",
      path: "/auth/sessions",
      summary: "List the signed-in user's sessions",
      description: "Needs a user's session JWT (an API token has no sessions: 403). `current` marks the session of the token this request was made with.",
      tag: "auth",
      capability: "sessions:own",
      response: sessionListOutput,
    },
    async ({ principal }) => {
      const user = sessionUser(principal);
      const { data } = await callUnary(identity.listSessions.bind(identity), {
        ...user,
        currentSessionId: principal.kind === "session" ? principal.sessionId : undefined,
      });
      return { body: { data: data.map(sessionOut), nextCursor: null } };
    },
  );
  route(
    api,
    {
      method: "delete",
      path: "/auth/sessions/:id",
      summary: "End one of the signed-in user's sessions",
      description: "Its refresh cookie stops working and its access tokens are refused. Another user's or an unknown id is a 404.",
      tag: "auth",
      capability: "sessions:own",
      status: 204,
    },
    async ({ principal, params }) => {
      await callUnary(identity.revokeSession.bind(identity), { ...sessionUser(principal), id: params.id });
      return {};
    },
  );
}

function sessionUser(principal: Principal): { tenantId: string; userId: string } {
  // The capability admits only sessions; this keeps the types honest.
  if (principal.kind !== "session") throw appError("token_type_forbidden", "Only a user's session has sessions.");
  return { tenantId: principal.tenantId, userId: principal.credentialId };
}

const tokenOut = (t: Token) => ({ ...t, expiresAt: t.expiresAt ?? null, lastUsedAt: t.lastUsedAt ?? null, revokedAt: t.revokedAt ?? null });

export function identityRoutes(api: Api, identity: IdentityServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/tokens",
      summary: "Create an API token (its value is shown only in this answer)",
      description:
        "The token value is stored only as a SHA-256 hash, so it appears in the first answer alone. " +
        "A replay (the same Idempotency-Key and body within 24 h, answered with `Idempotent-Replayed: true`) " +
        "answers 201 with the first answer's id, name, type, createdAt and expiresAt but without `token`.",
      tag: "tokens",
      capability: "tokens:manage",
      body: createTokenBody,
      response: createdTokenOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const created = await callUnary(identity.createToken.bind(identity), { tenantId: principal.tenantId, ...body, idempotency });
      const { lastUsedAt: _l, revokedAt: _r, ...token } = tokenOut(created.token!);
      // A replay has no value to show (identity keeps only its hash): the field is left out.
      return {
        body: created.value === undefined ? token : { ...token, token: created.value },
        headers: { "Cache-Control": "no-store" },
        replayed: created.replayed,
      };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/tokens",
      summary: "List API tokens (never their values)",
      tag: "tokens",
      capability: "tokens:manage",
      query: pageQuery,
      response: pageOf(tokenOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(identity.listTokens.bind(identity), { tenantId: principal.tenantId, ...query });
      return { body: { data: page.data.map(tokenOut), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    {
      method: "delete",
      path: "/tokens/:id",
      summary: "Revoke an API token everywhere, at once",
      tag: "tokens",
      capability: "tokens:manage",
      // Any token may revoke itself (a cli token at `waybill logout`), not another.
      ownCredentialParam: "id",
      status: 204,
    },
    async ({ params, principal }) => {
      await callUnary(identity.revokeToken.bind(identity), { tenantId: principal.tenantId, id: params.id });
      return {};
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/users",
      conflicts: ["duplicate_email"],
      summary: "Create a user in the caller's tenant",
      tag: "users",
      capability: "users:manage",
      body: createUserBody,
      response: userOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const { user, replayed } = await callUnary(identity.createUser.bind(identity), { tenantId: principal.tenantId, ...body, idempotency });
      return { body: user, replayed };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/users",
      summary: "List the tenant's users",
      tag: "users",
      capability: "users:manage",
      query: pageQuery,
      response: pageOf(userOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(identity.listUsers.bind(identity), { tenantId: principal.tenantId, ...query });
      return { body: { data: page.data, nextCursor: page.nextCursor ?? null } };
    },
  );
}
