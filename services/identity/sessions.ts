// Login: email and password for a short-lived access JWT carrying user, tenant, role and the
// session it belongs to (`sid`). Every login is a session (session-store.ts); "remember" also
// gives it a refresh value, so the console stays signed in across reloads.
import { SignJWT } from "jose";
import type { Pool } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { verifyPassword } from "./passwords.js";
import type { SigningKey } from "./session-keys.js";
import { createSession, type SessionPolicy } from "./session-store.js";
import { SESSION_ALGORITHM, SESSION_AUDIENCE, SESSION_ISSUER } from "@waybill/contracts/identity/sessions.js";

export interface AccessToken {
  accessToken: string;
  expiresAt: string;
}

export interface LoginAnswer extends AccessToken {
  sessionId: string;
  /** Only with remember. */
  refreshValue?: string;
  refreshExpiresAt?: string;
}

export interface SessionUser {
  id: string;
  tenantId: string;
  role: string;
}

// Verifying against a throwaway hash when the email is unknown keeps both answers equally slow,
// so response times do not tell which emails exist.
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

/** Signs an access JWT for `user` in session `sessionId`, valid `ttlSeconds`. */
export async function issueAccessToken(key: SigningKey, user: SessionUser, sessionId: string, ttlSeconds: number): Promise<AccessToken> {
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const accessToken = await new SignJWT({ tid: user.tenantId, role: user.role, sid: sessionId })
    .setProtectedHeader({ alg: SESSION_ALGORITHM, kid: key.kid, typ: "JWT" })
    .setSubject(user.id)
    .setIssuer(SESSION_ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(exp)
    .sign(key.privateKey);
  return { accessToken, expiresAt: new Date(exp * 1000).toISOString() };
}

export interface LoginInput {
  email: string;
  password: string;
  remember: boolean;
  userAgent?: string;
}

export async function login(pool: Pool, signingKey: () => SigningKey, policy: SessionPolicy, input: LoginInput): Promise<LoginAnswer> {
  const { rows } = await pool.query<{ id: string; tenant_id: string; role: string; password_hash: string }>(
    "SELECT id, tenant_id, role, password_hash FROM users WHERE lower(email) = lower($1)",
    [input.email],
  );
  const found = rows[0];
  const ok = await verifyPassword(input.password, found?.password_hash ?? DUMMY_HASH);
  if (!found || !ok) throw appError("invalid_credentials", "The email or password is wrong.");
  const user = { id: found.id, tenantId: found.tenant_id, role: found.role };
  const session = await createSession(pool, user, policy, input.remember, input.userAgent);
  const access = await issueAccessToken(signingKey(), user, session.id, policy.accessTtlSeconds);
  return { ...access, sessionId: session.id, refreshValue: session.refreshValue, refreshExpiresAt: session.refreshExpiresAt };
}
