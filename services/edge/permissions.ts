// What each credential type may do (API.md, "Token types"). Routes declare the capability they
// need; the table below is the only place that maps capabilities to token types.
import type { Middleware } from "koa";
import type { TokenType } from "../identity/tokens.js";
import { ForbiddenError, UnauthenticatedError } from "../platform/errors.js";

export type Capability =
  | "read" // any GET of business data
  | "orders:write"
  | "shipments:write"
  | "products:write"
  | "inventory:write"
  | "customers:write"
  | "hooks:write"
  | "tokens:manage"
  | "devices:publish";

const ALL_BUT_DEVICES: Capability[] = ["read", "orders:write", "shipments:write", "products:write", "inventory:write", "customers:write", "hooks:write"];

export const CAPABILITIES_BY_TOKEN_TYPE: Readonly<Record<TokenType, ReadonlySet<Capability>>> = Object.freeze({
  api: new Set<Capability>([...ALL_BUT_DEVICES, "tokens:manage", "devices:publish"]),
  machine: new Set<Capability>([...ALL_BUT_DEVICES, "devices:publish"]),
  cli: new Set<Capability>(["read", "orders:write", "shipments:write", "products:write", "hooks:write"]),
  sensor: new Set<Capability>(["devices:publish"]),
});

export function can(tokenType: TokenType, capability: Capability): boolean {
  return Object.hasOwn(CAPABILITIES_BY_TOKEN_TYPE, tokenType) && CAPABILITIES_BY_TOKEN_TYPE[tokenType].has(capability);
}

export function requires(capability: Capability): Middleware {
  return async (ctx, next) => {
    const principal = ctx.state.principal;
    if (!principal) throw new UnauthenticatedError("missing_credentials", "Send Authorization: Bearer <token>.");
    if (!can(principal.tokenType, capability)) {
      throw new ForbiddenError("token_type_forbidden", `A ${principal.tokenType} token may not do this (needs ${capability}).`);
    }
    await next();
  };
}
