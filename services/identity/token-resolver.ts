// The client side of identity used by the edge and the MQTT gateway: resolves a token to its
// principal and caches the answer (keyed by the token's hash, never the value).
import { LRUCache } from "lru-cache";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { callUnary } from "../platform/grpc.js";
import { hashToken, type TokenType } from "./tokens.js";

/** Who is calling: the credential a request or device session authenticated with. */
export interface Principal {
  tenantId: string;
  /** tok_… for API tokens. */
  credentialId: string;
  tokenType: TokenType;
  /** Unix ms; 0 for never. */
  expiresAtMs: number;
}

export interface TokenResolver {
  resolve(token: string): Promise<Principal>;
  /** Drops a credential from the cache (revocation). */
  forget(credentialId: string): void;
}

export function createTokenResolver(identity: IdentityServiceClient, options: { ttlMs: number; max: number }): TokenResolver {
  const cache = new LRUCache<string, Principal>({ max: options.max, ttl: Math.max(1, options.ttlMs) });
  return {
    async resolve(token) {
      const key = hashToken(token).toString("base64");
      const cached = cache.get(key);
      if (cached && (cached.expiresAtMs === 0 || cached.expiresAtMs > Date.now())) return cached;
      const answer = await callUnary(identity.authenticate.bind(identity), { token });
      const principal: Principal = {
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
  };
}

