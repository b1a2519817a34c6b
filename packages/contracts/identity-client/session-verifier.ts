// Session JWTs are verified locally with identity's public keys, fetched once and again only
// when a token names a key this edge has not seen (rotation), at most every few seconds.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import type { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import type { SessionPrincipal } from "./token-resolver.js";
import { SESSION_ALGORITHM } from "../identity/sessions.js";
import { SESSION_AUDIENCE, SESSION_ISSUER } from "../identity/sessions.js";
import { ROLES, type Role } from "../identity/roles.js";
import { appError } from "../errors/catalog.js";
import { callUnary } from "@waybill/platform/grpc.js";

export const JWKS_REFRESH_MIN_INTERVAL_MS = 5_000;

export interface SessionVerifier {
  verify(jwt: string): Promise<SessionPrincipal>;
}

export const VERIFIED_SESSION_CACHE_MAX = 10_000;

export function createSessionVerifier(identity: IdentityServiceClient): SessionVerifier {
  // A signature check costs more than the rest of a request's authentication; a session seen
  // before is answered from memory until it expires (keyed by its hash, never the token).
  const verified = new LRUCache<string, SessionPrincipal>({ max: VERIFIED_SESSION_CACHE_MAX });
  let keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = 0;
  const refresh = async () => {
    const { jwksJson } = await callUnary(identity.getSigningKeys.bind(identity), {});
    keySet = createLocalJWKSet(JSON.parse(jwksJson) as JSONWebKeySet);
    fetchedAt = Date.now();
  };
  const check = async (jwt: string) => {
    if (!keySet) await refresh();
    try {
      return await jwtVerify(jwt, keySet!, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE, algorithms: [SESSION_ALGORITHM] });
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey && Date.now() - fetchedAt > JWKS_REFRESH_MIN_INTERVAL_MS) {
        await refresh();
        return jwtVerify(jwt, keySet!, { issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE, algorithms: [SESSION_ALGORITHM] });
      }
      throw error;
    }
  };
  return {
    async verify(jwt) {
      const cacheKey = createHash("sha256").update(jwt).digest("base64");
      const known = verified.get(cacheKey);
      if (known && known.expiresAtMs > Date.now()) return known;
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
      const principal: SessionPrincipal = { kind: "session", tenantId: payload.tid, credentialId: payload.sub, role, expiresAtMs: (payload.exp ?? 0) * 1000 };
      verified.set(cacheKey, principal, { ttl: Math.max(1, principal.expiresAtMs - Date.now()) });
      return principal;
    },
  };
}
