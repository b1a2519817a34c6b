// Signs a forwarded event exactly as the service signs a delivery (X-Service-Signature:
// t=<unix seconds>,v1=hex(HMAC-SHA256(key = the whole "whsec_…" string, "<t>.<raw body>"))).
import { createHash, createHmac, randomBytes } from "node:crypto";

export const WEBHOOK_ID_HEADER = "X-Service-Webhook-Id";
export const SIGNATURE_HEADER = "X-Service-Signature";
const SECRET = /^whsec_[A-Za-z0-9+/=_-]{16,}$/;

export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function isSecret(value: string): boolean {
  return SECRET.test(value);
}

/** The same secret always forwards as the same pseudo hook. */
export function listenHookId(secret: string): string {
  return `hook_listen_${createHash("sha256").update(secret).digest("hex").slice(0, 16)}`;
}

export function signature(secret: string, body: string, now: number = Date.now()): string {
  const t = Math.floor(now / 1000);
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
}

/** The headers of a delivery of `body` as hook `hookId`, signed now. */
export function deliveryHeaders(hookId: string, secret: string, body: string): Record<string, string> {
  return { "Content-Type": "application/json", [WEBHOOK_ID_HEADER]: hookId, [SIGNATURE_HEADER]: signature(secret, body) };
}
