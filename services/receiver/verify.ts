// Verifying a Waybill webhook on the receiving side (docs/webhooks.md). Self-contained
// (node:crypto only) so that it can be copied into a receiver as it is.
//
//   const result = verifyWebhook(secret, req.headers["x-service-signature"], rawBody);
//   if (!result.ok) → answer 401
//
// The signature covers the raw body bytes: verify before parsing, and parse exactly those bytes.
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-service-signature";
export const WEBHOOK_ID_HEADER = "x-service-webhook-id";
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyOptions {
  /** Largest accepted |now − t| in seconds. */
  toleranceSeconds?: number;
  /** The current time (a Date or milliseconds since the epoch); defaults to the clock. */
  now?: Date | number;
}

export type VerifyFailure = "malformed signature header" | "timestamp outside tolerance" | "signature mismatch";

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure };

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/**
 * Checks `X-Service-Signature: t=<unix seconds>,v1=<hex>` against the raw body: recomputes
 * HMAC-SHA256 with the whole "whsec_…" secret as the key over "<t>.<raw body>", compares in
 * constant time, and refuses timestamps more than `toleranceSeconds` away from now.
 */
export function verifyWebhook(
  secret: string,
  signatureHeader: string | string[] | undefined | null,
  rawBody: string | Uint8Array,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: VerifyOptions = {},
): VerifyResult {
  const parsed = parseSignatureHeader(Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader);
  if (!parsed) return { ok: false, reason: "malformed signature header" };
  // Whole seconds, like `t` itself: a signature made 300.9 s ago is 300 s old, not 301.
  const nowSeconds = Math.floor((now instanceof Date ? now.getTime() : now) / 1000);
  if (!(Math.abs(nowSeconds - parsed.timestamp) <= toleranceSeconds)) return { ok: false, reason: "timestamp outside tolerance" };
  const expected = createHmac("sha256", secret).update(`${parsed.timestamp}.`).update(rawBody).digest();
  // Every v1 is checked (a sender may list several); each comparison is constant-time.
  let match = false;
  for (const candidate of parsed.signatures) match = timingSafeEqual(expected, Buffer.from(candidate, "hex")) || match;
  return match ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: "signature mismatch" };
}

/** "t=…,v1=…" → its parts; undefined when there is no usable t or v1. Unknown keys are ignored. */
export function parseSignatureHeader(header: string | undefined | null): { timestamp: number; signatures: string[] } | undefined {
  if (typeof header !== "string" || header.length > 1024) return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t") {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === "v1") {
      if (!HEX_SHA256.test(value)) return undefined;
      signatures.push(value);
    }
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}
