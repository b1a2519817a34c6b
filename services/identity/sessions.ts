// Login: email and password for a short-lived session JWT carrying user, tenant and role.
import { SignJWT } from "jose";
import type { Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { verifyPassword } from "./passwords.js";
import type { SigningKey } from "./session-keys.js";
import { SESSION_ALGORITHM, SESSION_AUDIENCE, SESSION_ISSUER } from "@waybill/contracts/identity/sessions.js";

export interface Session {
  accessToken: string;
  expiresAt: string;
}

// Verifying against a throwaway hash when the email is unknown keeps both answers equally slow,
// so response times do not tell which emails exist.
const DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

export async function login(db: Queryable, key: SigningKey, ttlSeconds: number, email: string, password: string): Promise<Session> {
  const { rows } = await db.query<{ id: string; tenant_id: string; role: string; password_hash: string }>(
    "SELECT id, tenant_id, role, password_hash FROM users WHERE lower(email) = lower($1)",
    [email],
  );
  const user = rows[0];
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) throw appError("invalid_credentials", "The email or password is wrong.");
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  const accessToken = await new SignJWT({ tid: user.tenant_id, role: user.role })
    .setProtectedHeader({ alg: SESSION_ALGORITHM, kid: key.kid, typ: "JWT" })
    .setSubject(user.id)
    .setIssuer(SESSION_ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key.privateKey);
  return { accessToken, expiresAt: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString() };
}
