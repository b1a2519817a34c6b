// The client side of identity used by the edge and the MQTT gateway: resolves a token to its
// principal and caches the answer (keyed by the token's hash, never the value).
import { LRUCache } from "lru-cache";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { UnauthenticatedError } from "../platform/errors.js";
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

/** Asks identity who a token belongs to; rejects with identity's 401 when it is not valid. */
export type TokenLookup = (token: string) => Promise<TokenPrincipal>;

/**
 * Revocations remembered while lookups are in flight. Past this many, the resolver treats the
 * next revocation as a gap instead (safe: nothing in flight gets cached), so memory stays bounded.
 */
export const MAX_PENDING_REVOCATIONS = 10_000;

export function createTokenResolver(identity: IdentityServiceClient, options: { ttlMs: number; max: number }): TokenResolver {
  return createCachingTokenResolver(async (token) => {
    const answer = await callUnary(identity.authenticate.bind(identity), { token });
    return { kind: "token", tenantId: answer.tenantId, credentialId: answer.tokenId, tokenType: answer.tokenType as TokenType, expiresAtMs: answer.expiresAtMs };
  }, options);
}

export function createCachingTokenResolver(lookup: TokenLookup, options: { ttlMs: number; max: number }): TokenResolver {
  const cache = new LRUCache<string, TokenPrincipal>({ max: options.max, ttl: Math.max(1, options.ttlMs) });
  // A lookup in flight when its token is revoked may carry identity's answer from before the
  // revocation; caching it would undo the revocation for up to ttlMs. So every revocation and
  // gap advances `epoch`, and a lookup's answer is cached only when nothing that concerns it
  // happened after it started.
  let epoch = 0;
  let gapEpoch = 0;
  const revokedAt = new Map<string, number>(); // credentialId → epoch of its revocation
  let inFlight = 0;

  return {
    async resolve(token) {
      const key = hashToken(token).toString("base64");
      const cached = cache.get(key);
      if (cached) {
        if (cached.expiresAtMs === 0 || cached.expiresAtMs > Date.now()) return cached;
        cache.delete(key);
        throw new UnauthenticatedError("token_expired", "The bearer token has expired.");
      }
      const startedAt = epoch;
      inFlight += 1;
      let principal: TokenPrincipal;
      try {
        principal = await lookup(token);
      } finally {
        inFlight -= 1;
      }
      const revokedMeanwhile = (revokedAt.get(principal.credentialId) ?? -1) > startedAt;
      if (inFlight === 0) revokedAt.clear(); // no lookup left that could have raced them
      // Identity's answer predates the revocation this process has already applied.
      if (revokedMeanwhile) throw new UnauthenticatedError("token_revoked", "The bearer token has been revoked.");
      if (options.ttlMs > 0 && gapEpoch <= startedAt) {
        const ttl = principal.expiresAtMs === 0 ? undefined : Math.min(options.ttlMs, Math.max(1, principal.expiresAtMs - Date.now()));
        cache.set(key, principal, { ttl });
      }
      return principal;
    },
    forget(credentialId) {
      epoch += 1;
      if (inFlight > 0) {
        if (revokedAt.size >= MAX_PENDING_REVOCATIONS) {
          revokedAt.clear();
          gapEpoch = epoch;
        } else revokedAt.set(credentialId, epoch);
      }
      for (const [key, principal] of cache.entries()) if (principal.credentialId === credentialId) cache.delete(key);
    },
    forgetAll() {
      epoch += 1;
      gapEpoch = epoch;
      cache.clear();
    },
  };
}
