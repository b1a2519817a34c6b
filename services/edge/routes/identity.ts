// /v1/auth/login, /v1/tokens and /v1/users: thin adapters to the identity service.
import type { IdentityServiceClient, Token } from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { route, type Api } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import { createdTokenOutput, createTokenBody, createUserBody, loginBody, loginOutput, tokenOutput, userOutput } from "../schemas/identity.js";

export function loginRoute(api: Api, identity: IdentityServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/auth/login",
      summary: "Exchange email and password for a session JWT",
      tag: "auth",
      capability: "public",
      body: loginBody,
      response: loginOutput,
    },
    async ({ body }) => {
      const session = await callUnary(identity.login.bind(identity), body);
      return { body: { accessToken: session.accessToken, tokenType: "Bearer", expiresAt: session.expiresAt } };
    },
  );
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
