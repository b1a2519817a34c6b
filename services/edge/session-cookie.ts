// The console's refresh cookie: every attribute in this one place. HttpOnly keeps it from page
// scripts, SameSite=Strict from other sites' requests, Path=/v1/auth from every other endpoint.
// Secure still works on http://127.0.0.1 and http://localhost: browsers treat loopback as a
// secure context. Written by hand: Koa's cookies refuse Secure on a plain-HTTP connection.
export const SESSION_COOKIE_NAME = "waybill_session";
export const SESSION_COOKIE_PATH = "/v1/auth";
const ATTRIBUTES = `Path=${SESSION_COOKIE_PATH}; HttpOnly; Secure; SameSite=Strict`;
/** What a refresh value looks like (256 random bits, base64url); anything else is ignored. */
const VALUE = /^[A-Za-z0-9_-]{43}$/;

/** Set-Cookie for a refresh value that stays valid until `expiresAt`. */
export function sessionCookie(value: string, expiresAt: string, now = Date.now()): string {
  const maxAge = Math.max(0, Math.round((new Date(expiresAt).getTime() - now) / 1000));
  return `${SESSION_COOKIE_NAME}=${value}; Max-Age=${maxAge}; ${ATTRIBUTES}`;
}

/** Set-Cookie that makes the browser drop the cookie. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE_NAME}=; Max-Age=0; ${ATTRIBUTES}`;
}

/** The refresh value from a Cookie header, when there is a well-formed one. */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE_NAME) continue;
    const value = part.slice(eq + 1).trim();
    if (VALUE.test(value)) return value;
  }
  return undefined;
}
