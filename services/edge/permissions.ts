// What each credential may do (API.md, "Token types"; sessions by role). Routes declare the
// capability they need; the tables below are the only place that maps capabilities to credentials.
// The README's permission table says the same in prose; keep them in step.
// Reading of API.md: "machine — the whole API but token management" also excludes /users, since
// whoever may create an admin user may log in as it and mint tokens; user management is token
// management by another door. "cli — …, reads" means reads of business data: listing tokens and
// users is identity management, refused to cli as to machine.
import type { Middleware } from "koa";
import type { TokenType } from "@waybill/contracts/identity/tokens.js";
import type { Role } from "@waybill/contracts/identity/roles.js";
import { appError } from "@waybill/contracts/errors/catalog.js";

export type Capability =
  | "read" // any GET of business data (not /tokens, /users)
  | "orders:write"
  | "shipments:write"
  | "products:write"
  | "inventory:write"
  | "customers:write"
  | "hooks:write"
  | "tokens:manage"
  | "users:manage"
  | "devices:publish"
  | "sessions:own"; // a user's own console sessions: sessions only, never a token

const ALL_BUT_DEVICES: Capability[] = ["read", "orders:write", "shipments:write", "products:write", "inventory:write", "customers:write", "hooks:write"];

export const CAPABILITIES_BY_TOKEN_TYPE: Readonly<Record<TokenType, ReadonlySet<Capability>>> = Object.freeze({
  api: new Set<Capability>([...ALL_BUT_DEVICES, "tokens:manage", "users:manage", "devices:publish"]),
  machine: new Set<Capability>([...ALL_BUT_DEVICES, "devices:publish"]),
  cli: new Set<Capability>(["read", "orders:write", "shipments:write", "products:write", "hooks:write"]),
  sensor: new Set<Capability>(["devices:publish"]),
});

/** Session users: admins may do what an api token may; members all but token and user management. */
export const CAPABILITIES_BY_ROLE: Readonly<Record<Role, ReadonlySet<Capability>>> = Object.freeze({
  admin: new Set<Capability>([...CAPABILITIES_BY_TOKEN_TYPE.api, "sessions:own"]),
  member: new Set<Capability>([...CAPABILITIES_BY_TOKEN_TYPE.machine, "sessions:own"]),
});

export function can(tokenType: TokenType, capability: Capability): boolean {
  return Object.hasOwn(CAPABILITIES_BY_TOKEN_TYPE, tokenType) && CAPABILITIES_BY_TOKEN_TYPE[tokenType].has(capability);
}

export function roleCan(role: Role, capability: Capability): boolean {
  return Object.hasOwn(CAPABILITIES_BY_ROLE, role) && CAPABILITIES_BY_ROLE[role].has(capability);
}

/**
 * `ownCredentialParam`: the path parameter that names a credential; when it names the caller's
 * own token, no capability is needed (any token may revoke itself: `waybill logout` with a cli token).
 */
export function requires(capability: Capability, ownCredentialParam?: string): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw appError("missing_credentials", "Send Authorization: Bearer <token>.");
    const params = (ctx as { params?: Record<string, string> }).params;
    if (ownCredentialParam && principal.kind === "token" && params?.[ownCredentialParam] === principal.credentialId) return next();
    if (principal.kind === "session" && !roleCan(principal.role, capability)) {
      throw appError("role_forbidden", `A ${principal.role} may not do this (needs ${capability}).`);
    }
    if (principal.kind === "token" && !can(principal.tokenType, capability)) {
      throw appError("token_type_forbidden", `A ${principal.tokenType} token may not do this (needs ${capability}).`);
    }
    await next();
  };
}
