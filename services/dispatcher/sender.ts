// Sends one signed delivery over HTTP with undici: keep-alive connections per origin (one Agent,
// which pools per origin), an overall timeout, the SSRF guard on the resolved address, and an
// answer reduced to what an execution record keeps.
import { LRUCache } from "lru-cache";
import { Agent, type Dispatcher } from "undici";
import { BLOCKED_ADDRESS_ERROR, BlockedAddressError, guardedLookup, isBlockedLiteralHost } from "./ssrf.js";

export const RESPONSE_BODY_LIMIT_BYTES = 4096;
/** Read (and discard) at most this much of an answer so its connection can be reused. */
export const RESPONSE_DRAIN_LIMIT_BYTES = 256 * 1024;
export const CONNECT_TIMEOUT_MS = 10_000;
export const CONNECTIONS_PER_ORIGIN = 128;
export const USER_AGENT = "Waybill-Webhooks/1";
/** Hook urls kept parsed: every delivery to a hook sends to the same one. */
export const PARSED_URLS_MAX = 10_000;
/** Stateless when not streaming, so one serves every answer. */
const UTF8 = new TextDecoder("utf-8", { fatal: false });

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
  const onAbortOf = createAbortFanOut();
  const parsed = new LRUCache<string, Target>({ max: PARSED_URLS_MAX });
  /** The url's origin and path, and whether it names a blocked address literal (no lookup checks that). */
  const targetOf = (url: string): Target => {
    let target = parsed.get(url);
    if (target === undefined) {
      const { origin, pathname, search, hostname } = new URL(url);
      target = { origin, path: `${pathname}${search}`, blocked: isBlockedLiteralHost(hostname, allowPrivateNetworks) };
      parsed.set(url, target);
    }
    return target;
  };

  // undici's dispatch API with a handler of our own rather than request(): no AbortController and
  // listener per request, no body stream and async iteration over it. This runs once per delivery,
  // the dispatcher's hottest call, so whatever it allocates is paid on every webhook.
  function send(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<SendResult> {
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
    const target = targetOf(url);
    // An address literal is connected to without any lookup, so it is checked here.
    if (target.blocked) return Promise.resolve(finish({ error: BLOCKED_ADDRESS_ERROR }));
    if (signal?.aborted) return Promise.resolve(finish({ aborted: true, error: "aborted by shutdown" }));

    return new Promise<SendResult>((resolve) => {
      let statusCode = 0;
      let responseHeaders: Record<string, string> = {};
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let seenBytes = 0;
      let controller: Dispatcher.DispatchController | undefined;
      let done = false;
      const settle = (result: SendResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        forget();
        resolve(result);
      };
      // Once the status has arrived it decides the attempt: a body that keeps coming (endless, or
      // a trickle) is cut at the drain limit or the timeout, and what arrived is kept.
      const answered = () =>
        finish({
          ok: statusCode >= 200 && statusCode < 300,
          statusCode,
          responseBody: kept.length === 0 ? "" : sanitize(UTF8.decode(kept.length === 1 ? kept[0] : Buffer.concat(kept))),
          responseHeaders,
          retryAfter: statusCode === 429 || statusCode === 503 ? responseHeaders["retry-after"] : undefined,
          receiverFault: statusCode >= 500 || statusCode === 429,
        });
      /** Ends the attempt early (its timeout, or the caller's shutdown), and its request with it. */
      const stop = (why: "timeout" | "shutdown") => {
        if (statusCode !== 0) settle(answered());
        else if (why === "timeout") settle(finish({ error: `timeout after ${timeoutMs} ms`, receiverFault: true }));
        else settle(finish({ aborted: true, error: "aborted by shutdown" }));
        controller?.abort(new Error(`delivery stopped: ${why}`));
      };
      const timer = setTimeout(() => stop("timeout"), timeoutMs);
      const forget = onAbortOf(signal, () => stop("shutdown"));
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (done) c.abort(new Error("delivery stopped")); // stopped while it waited for a connection
        },
        onResponseStart(_c, code, responded) {
          if (code < 200) return; // informational: the answer follows
          statusCode = code;
          responseHeaders = flattenHeaders(responded);
        },
        onResponseData(c, chunk) {
          seenBytes += chunk.length;
          if (keptBytes < RESPONSE_BODY_LIMIT_BYTES) {
            const part = chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - keptBytes);
            kept.push(part);
            keptBytes += part.length;
          }
          // Read (and dropped) up to a limit, so that the connection can be reused; beyond it, cut.
          if (seenBytes >= RESPONSE_DRAIN_LIMIT_BYTES) {
            settle(answered());
            c.abort(new Error("answer too long"));
          }
        },
        onResponseEnd() {
          settle(answered());
        },
        onResponseError(_c, error) {
          if (statusCode !== 0) return settle(answered());
          const described = describeError(error);
          settle(finish({ error: described, receiverFault: described !== BLOCKED_ADDRESS_ERROR }));
        },
      };
      try {
        const requestHeaders = { ...headers, "User-Agent": USER_AGENT };
        agent.dispatch({ origin: target.origin, path: target.path, method: "POST", headers: requestHeaders, body }, handler);
      } catch (error) {
        settle(finish({ error: describeError(error) }));
      }
    });
  }

  return { send, close: () => agent.close() };
}

interface Target {
  origin: string;
  path: string;
  blocked: boolean;
}

/**
 * Calls each send's stop when its caller's signal aborts, with one listener per signal rather than
 * one per request on a signal that lives as long as the service. Returns the unsubscribe.
 */
function createAbortFanOut(): (signal: AbortSignal | undefined, stop: () => void) => () => void {
  const stopsOf = new WeakMap<AbortSignal, Set<() => void>>();
  return (signal, stop) => {
    if (!signal) return () => {};
    let stops = stopsOf.get(signal);
    if (!stops) {
      const created = new Set<() => void>();
      stops = created;
      stopsOf.set(signal, created);
      signal.addEventListener(
        "abort",
        () => {
          for (const each of [...created]) each();
        },
        { once: true },
      );
    }
    const mine = stops;
    mine.add(stop);
    return () => void mine.delete(stop);
  };
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
  // Nearly every header value and body has neither: a plain scan first, the replacement (with its
  // lookarounds) only when one may be there. This runs for every header of every answer.
  if (!MAY_NEED_SANITIZING.test(text)) return text;
  return text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

const MAY_NEED_SANITIZING = /[\u0000\uD800-\uDFFF]/;

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
