// The client side of identity used by the edge and the MQTT gateway: resolves a token to its
// principal and caches the answer (keyed by the token's hash, never the value).
import { LRUCache } from "lru-cache";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { appError } from "../errors/catalog.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { tokenCacheKey, type TokenType } from "../identity/tokens.js";
import type { Role } from "../identity/roles.js";

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
  /** The session (ses_…) the JWT belongs to: its `sid` claim. */
  sessionId?: string;
}

/** Who is calling: the credential a request or device session authenticated with. */
export type Principal = TokenPrincipal | SessionPrincipal;

/** How long and how many answers of identity a resolver keeps (edge and MQTT gateway alike). */
export const DEFAULT_AUTH_CACHE_TTL_MS = 30_000;
export const DEFAULT_AUTH_CACHE_MAX = 10_000;

export interface TokenResolver {
  resolve(token: string): Promise<TokenPrincipal>;
  /** Drops a credential from the cache (revocation). */
  forget(credentialId: string): void;
  /** Drops everything (revocations may have been missed). */
  forgetAll(): void;
}

/** Asks identity who a token belongs to; rejects with identity's 401 when it is not valid. */
export type TokenLookup = (token: string) => Promise<TokenPrincipal>;

export function createTokenResolver(identity: IdentityServiceClient, options: { ttlMs: number; max: number }): TokenResolver {
  return createCachingTokenResolver(async (token) => {
    const answer = await callUnary(identity.resolveToken.bind(identity), { token });
    return {
      kind: "token",
      tenantId: answer.tenantId,
      credentialId: answer.tokenId,
      tokenType: answer.tokenType as TokenType,
      expiresAtMs: answer.expiresAtMs,
    };
  }, options);
}

export function createCachingTokenResolver(lookup: TokenLookup, options: { ttlMs: number; max: number }): TokenResolver {
  const cache = new LRUCache<string, TokenPrincipal>({ max: options.max, ttl: Math.max(1, options.ttlMs) });
  // A lookup in flight when its token is revoked may carry identity's answer from before the
  // revocation; caching it would undo the revocation for up to ttlMs. Every revocation and gap
  // advances `epoch`, and an answer is cached only when the epoch did not move while it was
  // asked for (revocations are rare: caching a little less meanwhile costs nothing). The answer
  // itself still serves its request, which was under way before the revocation.
  let epoch = 0;

  return {
    async resolve(token) {
      const key = tokenCacheKey(token);
      const cached = cache.get(key);
      if (cached) {
        if (cached.expiresAtMs === 0 || cached.expiresAtMs > Date.now()) return cached;
        cache.delete(key);
        throw appError("token_expired", "The bearer token has expired.");
      }
      const startedAt = epoch;
      const principal = await lookup(token);
      if (options.ttlMs > 0 && epoch === startedAt) {
        const ttl = principal.expiresAtMs === 0 ? undefined : Math.min(options.ttlMs, Math.max(1, principal.expiresAtMs - Date.now()));
        cache.set(key, principal, { ttl });
      }
      return principal;
    },
    forget(credentialId) {
      epoch += 1;
      for (const [key, principal] of cache.entries()) if (principal.credentialId === credentialId) cache.delete(key);
    },
    forgetAll() {
      epoch += 1;
      cache.clear();
    },
  };
}
