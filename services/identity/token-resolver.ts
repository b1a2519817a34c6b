// The client side of identity used by the edge and the MQTT gateway: resolves a token to its
// principal and caches the answer (keyed by the token's hash, never the value).
import { LRUCache } from "lru-cache";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { callUnary } from "../platform/grpc.js";
import { hashToken, type TokenType } from "./tokens.js";
import type { Role } from "./users.js";

interface PrincipalBase {
  tenantId: string;
  /** tok_… for API tokens, usr_… for sessions. */
  credentialId: string;
  /** Unix ms; 0 for never. */
  expiresAtMs: number;
}

/** Who is calling with an API token. */
export interface TokenPrincipal extends PrincipalBase {
  kind: "token";
  tokenType: TokenType;
}

/** Who is calling with a session JWT from POST /v1/auth/login. */
export interface SessionPrincipal extends PrincipalBase {
  kind: "session";
  role: Role;
}

/** Who is calling: the credential a request or device session authenticated with. */
export type Principal = TokenPrincipal | SessionPrincipal;

export interface TokenResolver {
  resolve(token: string): Promise<TokenPrincipal>;
  /** Drops a credential from the cache (revocation). */
  forget(credentialId: string): void;
  /** Drops everything (revocations may have been missed). */
  forgetAll(): void;
}

export function createTokenResolver(identity: IdentityServiceClient, options: { ttlMs: number; max: number }): TokenResolver {
  const cache = new LRUCache<string, TokenPrincipal>({ max: options.max, ttl: Math.max(1, options.ttlMs) });
  return {
    async resolve(token) {
      const key = hashToken(token).toString("base64");
      const cached = cache.get(key);
      if (cached && (cached.expiresAtMs === 0 || cached.expiresAtMs > Date.now())) return cached;
      const answer = await callUnary(identity.authenticate.bind(identity), { token });
      const principal: TokenPrincipal = {
        kind: "token",
        tenantId: answer.tenantId,
        credentialId: answer.tokenId,
        tokenType: answer.tokenType as TokenType,
        expiresAtMs: answer.expiresAtMs,
      };
      const ttl = principal.expiresAtMs === 0 ? undefined : Math.min(options.ttlMs, Math.max(1, principal.expiresAtMs - Date.now()));
      if (options.ttlMs > 0) cache.set(key, principal, { ttl });
      return principal;
    },
    forget(credentialId) {
      for (const [key, principal] of cache.entries()) if (principal.credentialId === credentialId) cache.delete(key);
    },
    forgetAll() {
      cache.clear();
    },
  };
}

