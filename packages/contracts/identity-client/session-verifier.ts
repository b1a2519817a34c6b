// Session JWTs are verified locally with identity's public keys, fetched once and again only
// when a token names a key this edge has not seen (rotation), at most every few seconds. Keys
// identity dropped stay in this edge's set until the next fetch: harmless, every token they
// signed has expired.
import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import type { SessionPrincipal } from "./token-resolver.js";
import { SESSION_ALGORITHM } from "../identity/sessions.js";
import { SESSION_AUDIENCE, SESSION_ISSUER } from "../identity/sessions.js";
import { ROLES, type Role } from "../identity/roles.js";
import { appError } from "../errors/catalog.js";
import { callUnary } from "@waybill/platform/grpc.js";

export const JWKS_REFRESH_MIN_INTERVAL_MS = 5_000;
/** Clocks of identity and this edge may differ by this much. */
const CLOCK_SKEW_MS = 5_000;

export interface SessionVerifier {
  verify(jwt: string): Promise<SessionPrincipal>;
  /** Refuses from now on the access JWTs of this session (ses_…): it was revoked. */
  revoke(sessionId: string): void;
}

/**
 * How long a revoked session id is remembered: longer than any access JWT lives (identity's
 * SESSION_TTL_SECONDS is at most 24 h), so its tokens have expired by the time it is forgotten.
 */
export const REVOKED_SESSION_MEMORY_MS = 24 * 3600 * 1000;
export const REVOKED_SESSIONS_MAX = 100_000;

export const VERIFIED_SESSION_CACHE_MAX = 10_000;

export function createSessionVerifier(identity: IdentityServiceClient, options: { jwksRefreshMinIntervalMs?: number } = {}): SessionVerifier {
  const minIntervalMs = options.jwksRefreshMinIntervalMs ?? JWKS_REFRESH_MIN_INTERVAL_MS;
  // A signature check costs more than the rest of a request's authentication; a session seen
  // before is answered from memory until it expires (keyed by its hash, never the token).
  const verified = new LRUCache<string, SessionPrincipal>({ max: VERIFIED_SESSION_CACHE_MAX });
  // Sessions ended while this edge listened (revocation broadcast). One that ended while it was
  // not listening keeps working until its access JWT expires (SESSION_TTL_SECONDS, 15 min).
  const revoked = new LRUCache<string, true>({ max: REVOKED_SESSIONS_MAX, ttl: REVOKED_SESSION_MEMORY_MS });
  const refuseRevoked = (principal: SessionPrincipal) => {
    if (principal.sessionId !== undefined && revoked.has(principal.sessionId)) {
      throw appError("session_revoked", "The session was ended (signed out or revoked); log in again.");
    }
    return principal;
  };
  let keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = 0;
  let fetching: Promise<void> | undefined;
  // One fetch at a time and at most one per interval. A token naming a key fetched moments ago
  // did not have (identity rotated its key just after) waits for the next fetch, not refused.
  const refresh = () =>
    (fetching ??= (async () => {
      const wait = fetchedAt + minIntervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const { jwksJson } = await callUnary(identity.getSigningKeys.bind(identity), {});
      keySet = createLocalJWKSet(JSON.parse(jwksJson) as JSONWebKeySet);
      fetchedAt = Date.now();
    })().finally(() => {
      fetching = undefined;
    }));
  // Only a token issued after the keys were fetched can name a key they lacked; others fail fast.
  const issuedSinceFetch = (jwt: string) => {
    const iat = decodeJwt(jwt).iat;
    return typeof iat === "number" && iat * 1000 >= fetchedAt - CLOCK_SKEW_MS;
  };
  const check = async (jwt: string) => {
    if (!keySet) await refresh();
    try {
      return await jwtVerify(jwt, keySet!, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE, algorithms: [SESSION_ALGORITHM] });
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey && issuedSinceFetch(jwt)) {
        await refresh();
        return jwtVerify(jwt, keySet!, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE, algorithms: [SESSION_ALGORITHM] });
      }
      throw error;
    }
  };
  return {
    async verify(jwt) {
      const cacheKey = hash("sha256", jwt, "base64");
      const known = verified.get(cacheKey);
      if (known && known.expiresAtMs > Date.now()) return refuseRevoked(known);
      let payload: JWTPayload;
      try {
        ({ payload } = await check(jwt));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw appError("session_expired", "The session has expired; log in again.");
        if (error instanceof joseErrors.JOSEError) throw appError("invalid_session", "The session token is not valid.");
        throw error; // identity unreachable: a 503 from the caller's error mapping
      }
      const role = payload.role as Role;
      if (typeof payload.sub !== "string" || typeof payload.tid !== "string" || !ROLES.includes(role)) {
        throw appError("invalid_session", "The session token is not valid.");
      }
      // Tokens from before sessions were stored carry no sid; they expire within SESSION_TTL_SECONDS.
      const sessionId = typeof payload.sid === "string" ? payload.sid : undefined;
      const principal: SessionPrincipal = {
        kind: "session",
        tenantId: payload.tid,
        credentialId: payload.sub,
        role,
        expiresAtMs: (payload.exp ?? 0) * 1000,
        ...(sessionId === undefined ? {} : { sessionId }),
      };
      verified.set(cacheKey, principal, { ttl: Math.max(1, principal.expiresAtMs - Date.now()) });
      return refuseRevoked(principal);
    },
    revoke(sessionId) {
      revoked.set(sessionId, true);
    },
  };
}
