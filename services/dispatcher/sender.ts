// Sends one signed delivery over HTTP with undici: keep-alive connections per origin (one Agent,
// which pools per origin), an overall timeout, the SSRF guard on the resolved address, and an
// answer reduced to what an execution record keeps.
import { Agent } from "undici";
import { BLOCKED_ADDRESS_ERROR, BlockedAddressError, guardedLookup, isBlockedLiteralHost } from "./ssrf.js";

export const RESPONSE_BODY_LIMIT_BYTES = 4096;
/** Read (and discard) at most this much of an answer so its connection can be reused. */
export const RESPONSE_DRAIN_LIMIT_BYTES = 256 * 1024;
export const CONNECT_TIMEOUT_MS = 10_000;
export const CONNECTIONS_PER_ORIGIN = 128;
export const USER_AGENT = "Waybill-Webhooks/1";

export interface SendResult {
  requestedAt: Date;
  durationMs: number;
  ok: boolean;
  statusCode: number | null;
  responseBody: string | null;
  responseHeaders: Record<string, string>;
  error: string | null;
  /** Retry-After of a 429/503 answer, as sent. */
  retryAfter?: string;
  /** The receiver looks unwell (no answer, 5xx, 429): counts toward its circuit breaker. */
  receiverFault: boolean;
  /** Stopped by the caller's signal (shutdown), not by the receiver: no attempt to record. */
  aborted: boolean;
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<SendResult>;
  close(): Promise<void>;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  now?: () => number;
}

export function createSender(options: SenderOptions): Sender {
  const { timeoutMs, allowPrivateNetworks } = options;
  const agent = new Agent({
    connections: CONNECTIONS_PER_ORIGIN,
    connect: { lookup: guardedLookup(allowPrivateNetworks), timeout: Math.min(timeoutMs, CONNECT_TIMEOUT_MS) },
  });

  async function send(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<SendResult> {
    const requestedAt = new Date();
    const started = performance.now();
    const finish = (fields: Partial<SendResult>): SendResult => ({
      requestedAt,
      durationMs: Math.round(performance.now() - started),
      ok: false,
      statusCode: null,
      responseBody: null,
      responseHeaders: {},
      error: null,
      receiverFault: false,
      aborted: false,
      ...fields,
    });
    const target = new URL(url);
    // An address literal is connected to without any lookup, so it is checked here.
    if (isBlockedLiteralHost(target.hostname, allowPrivateNetworks)) return finish({ error: BLOCKED_ADDRESS_ERROR });
    // One controller per request, aborted by its own timer or by the caller's signal. Not
    // AbortSignal.timeout + AbortSignal.any: every request then left a dependant signal on the
    // long-lived shutdown signal, and the pair showed up in the dispatcher's profile (~3 %).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (signal?.aborted) controller.abort();
      const response = await agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: "POST",
        headers: { ...headers, "User-Agent": USER_AGENT },
        body,
        signal: controller.signal,
      });
      const responseBody = await readHead(response.body);
      const statusCode = response.statusCode;
      const responseHeaders = flattenHeaders(response.headers);
      const ok = statusCode >= 200 && statusCode < 300;
      return finish({
        ok,
        statusCode,
        responseBody,
        responseHeaders,
        retryAfter: statusCode === 429 || statusCode === 503 ? responseHeaders["retry-after"] : undefined,
        receiverFault: statusCode >= 500 || statusCode === 429,
      });
    } catch (error) {
      if (signal?.aborted && !timedOut) return finish({ aborted: true, error: "aborted by shutdown" });
      if (timedOut) return finish({ error: `timeout after ${timeoutMs} ms`, receiverFault: true });
      const error_ = describeError(error);
      return finish({ error: error_, receiverFault: error_ !== BLOCKED_ADDRESS_ERROR });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  return { send, close: () => agent.close() };
}

/**
 * The first 4 KiB of an answer as text; the rest is read and dropped (up to a limit, so that the
 * connection can be reused). The status has arrived by then and decides the attempt: a body that
 * keeps coming (endless, or a trickle) is cut when the limit is read or the request's timeout
 * fires, and what arrived is kept.
 */
async function readHead(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  try {
    for await (const chunk of body) {
      seen += chunk.length;
      if (kept < RESPONSE_BODY_LIMIT_BYTES) {
        const part = chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (seen >= RESPONSE_DRAIN_LIMIT_BYTES) break; // leaving the loop destroys the stream
    }
  } catch {
    // Timed out (or shut down) while the body was still coming: the answer is what arrived.
  }
  return sanitize(new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks)));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = sanitize(Array.isArray(value) ? value.join(", ") : value);
  }
  return out;
}

/** PostgreSQL text and jsonb hold neither NUL nor lone UTF-16 surrogates. */
function sanitize(text: string): string {
  return text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_OSSL_)/;

function describeError(error: unknown): string {
  // undici wraps socket errors; the cause carries the system code.
  for (let e = error as (Error & { code?: string; cause?: unknown }) | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e instanceof BlockedAddressError || e.code === "EBLOCKEDADDRESS") return BLOCKED_ADDRESS_ERROR;
    switch (e.code) {
      case "ECONNREFUSED":
        return "connection refused";
      case "ECONNRESET":
      case "UND_ERR_SOCKET":
        return "connection reset";
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return "DNS lookup failed";
      case "UND_ERR_CONNECT_TIMEOUT":
        return "connect timeout";
      case "EHOSTUNREACH":
      case "ENETUNREACH":
        return "host unreachable";
    }
    if (e.code && TLS_CODE.test(e.code)) return `TLS error: ${e.message}`;
  }
  return sanitize((error as Error)?.message || "request failed");
}
