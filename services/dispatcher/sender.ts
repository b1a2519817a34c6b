// Sends one signed delivery over HTTP with undici: keep-alive connections of the hook's own, at
// most one per request it may have in flight (hook-connections.ts), an overall timeout, the SSRF
// guard on the resolved address, and an answer reduced to what an execution record keeps.
import { LRUCache } from "lru-cache";
import { SlotSet } from "@waybill/platform/slot-set.js";
import { buildConnector, type Dispatcher } from "undici";
import { createHookConnections } from "./hook-connections.js";
import { BLOCKED_ADDRESS_ERROR, BlockedAddressError, guardedLookup, isBlockedLiteralHost } from "./ssrf.js";

export const RESPONSE_BODY_LIMIT_BYTES = 4096;
/** Read (and discard) at most this much of an answer so its connection can be reused. */
export const RESPONSE_DRAIN_LIMIT_BYTES = 256 * 1024;
export const CONNECT_TIMEOUT_MS = 10_000;
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
  /** Sends over the hook's own connections (`hookId`). */
  send(hookId: string, url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<SendResult>;
  close(): Promise<void>;
}

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Requests one hook may have in flight (its lane's places): its connections at most. */
  connectionsPerHook: number;
}

export function createSender(options: SenderOptions): Sender {
  const { timeoutMs, allowPrivateNetworks } = options;
  const connections = createHookConnections({
    perHook: options.connectionsPerHook,
    connect: buildConnector({ lookup: guardedLookup(allowPrivateNetworks), timeout: Math.min(timeoutMs, CONNECT_TIMEOUT_MS) }),
  });
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

  const attemptsStoppedBy = createAbortFanOut();

  // undici's dispatch API with a handler of our own rather than request(): no AbortController and
  // listener per request, no body stream and async iteration over it. This runs once per delivery,
  // the dispatcher's hottest call, so whatever it allocates is paid on every webhook: one Attempt
  // (its handler methods on the prototype, not closures made per request).
  function send(hookId: string, url: string, body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<SendResult> {
    const target = targetOf(url);
    return new Promise<SendResult>((resolve) => {
      const attempt = new Attempt(resolve, timeoutMs);
      // An address literal is connected to without any lookup, so it is checked here.
      if (target.blocked) return attempt.settle(attempt.result({ error: BLOCKED_ADDRESS_ERROR }));
      if (signal?.aborted) return attempt.settle(attempt.result({ aborted: true, error: "aborted by shutdown" }));
      attempt.arm(signal && attemptsStoppedBy(signal));
      try {
        const requestHeaders = { ...headers, "User-Agent": USER_AGENT };
        const pool = connections.poolFor(hookId, target.origin);
        pool.dispatch({ origin: target.origin, path: target.path, method: "POST", headers: requestHeaders, body }, attempt);
      } catch (error) {
        attempt.settle(attempt.result({ error: describeError(error) }));
      }
    });
  }

  return { send, close: () => connections.close() };
}

interface Target {
  origin: string;
  path: string;
  blocked: boolean;
}

/**
 * The attempts each caller's signal stops when it aborts: one listener per signal rather than one
 * per request on a signal that lives as long as the service.
 */
function createAbortFanOut(): (signal: AbortSignal) => SlotSet<Attempt> {
  const attemptsOf = new WeakMap<AbortSignal, SlotSet<Attempt>>();
  return (signal) => {
    let attempts = attemptsOf.get(signal);
    if (attempts === undefined) {
      const created = new SlotSet<Attempt>(); // slots, not a Set: see slot-set.ts
      attempts = created;
      attemptsOf.set(signal, created);
      signal.addEventListener(
        "abort",
        () => {
          for (const each of created.values()) each.stop("shutdown");
        },
        { once: true },
      );
    }
    return attempts;
  };
}

const stopOnTimeout = (attempt: Attempt) => attempt.stop("timeout");

/** One request in flight: undici's handler, its answer as it arrives, and its settling (once). */
class Attempt implements Dispatcher.DispatchHandler {
  readonly requestedAt = new Date();
  readonly #started = performance.now();
  readonly #resolve: (result: SendResult) => void;
  readonly #timeoutMs: number;
  #timer: NodeJS.Timeout | undefined;
  /** The attempts its caller's signal would stop, this one among them (until it settles). */
  #stoppedWith: SlotSet<Attempt> | undefined;
  #stoppedWithSlot = -1;
  #statusCode = 0;
  #responseHeaders: Record<string, string> = {};
  #kept: Buffer[] = [];
  #keptBytes = 0;
  #seenBytes = 0;
  #controller: Dispatcher.DispatchController | undefined;
  #done = false;

  constructor(resolve: (result: SendResult) => void, timeoutMs: number) {
    this.#resolve = resolve;
    this.#timeoutMs = timeoutMs;
  }

  /** Starts its timeout, and joins the attempts its caller's signal stops (if it has one). */
  arm(stoppedWith: SlotSet<Attempt> | undefined): void {
    this.#stoppedWith = stoppedWith;
    if (stoppedWith) this.#stoppedWithSlot = stoppedWith.add(this);
    this.#timer = setTimeout(stopOnTimeout, this.#timeoutMs, this);
  }

  result(fields: Partial<SendResult>): SendResult {
    return {
      requestedAt: this.requestedAt,
      durationMs: Math.round(performance.now() - this.#started),
      ok: false,
      statusCode: null,
      responseBody: null,
      responseHeaders: {},
      error: null,
      receiverFault: false,
      aborted: false,
      ...fields,
    };
  }

  settle(result: SendResult): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    this.#stoppedWith?.delete(this.#stoppedWithSlot);
    this.#stoppedWith = undefined;
    this.#resolve(result);
  }

  /**
   * Once the status has arrived it decides the attempt: a body that keeps coming (endless, or a
   * trickle) is cut at the drain limit or the timeout, and what arrived is kept.
   */
  #answered(): SendResult {
    const statusCode = this.#statusCode;
    const kept = this.#kept;
    return this.result({
      ok: statusCode >= 200 && statusCode < 300,
      statusCode,
      responseBody: kept.length === 0 ? "" : sanitize(UTF8.decode(kept.length === 1 ? kept[0] : Buffer.concat(kept))),
      responseHeaders: this.#responseHeaders,
      retryAfter: statusCode === 429 || statusCode === 503 ? this.#responseHeaders["retry-after"] : undefined,
      receiverFault: statusCode >= 500 || statusCode === 429,
    });
  }

  /** Ends the attempt early (its timeout, or the caller's shutdown), and its request with it. */
  stop(why: "timeout" | "shutdown"): void {
    if (this.#statusCode !== 0) this.settle(this.#answered());
    else if (why === "timeout") this.settle(this.result({ error: `timeout after ${this.#timeoutMs} ms`, receiverFault: true }));
    else this.settle(this.result({ aborted: true, error: "aborted by shutdown" }));
    this.#controller?.abort(new Error(`delivery stopped: ${why}`));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#done) controller.abort(new Error("delivery stopped")); // stopped while it waited for a connection
  }

  onResponseStart(_controller: Dispatcher.DispatchController, code: number, responded: Record<string, string | string[] | undefined>): void {
    if (code < 200) return; // informational: the answer follows
    this.#statusCode = code;
    this.#responseHeaders = flattenHeaders(responded);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#seenBytes += chunk.length;
    if (this.#keptBytes < RESPONSE_BODY_LIMIT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - this.#keptBytes);
      this.#kept.push(part);
      this.#keptBytes += part.length;
    }
    // Read (and dropped) up to a limit, so that the connection can be reused; beyond it, cut.
    if (this.#seenBytes >= RESPONSE_DRAIN_LIMIT_BYTES) {
      this.settle(this.#answered());
      controller.abort(new Error("answer too long"));
    }
  }

  onResponseEnd(): void {
    this.settle(this.#answered());
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#statusCode !== 0) {
      this.settle(this.#answered());
      return;
    }
    const described = describeError(error);
    this.settle(this.result({ error: described, receiverFault: described !== BLOCKED_ADDRESS_ERROR }));
  }
}

/**
 * Headers that describe the connection, not the answer (RFC 9110 §7.6.1): a proxy drops them, and
 * an execution record does too. Kept, they were two of the four headers of a typical answer
 * (`connection: keep-alive`, `keep-alive: timeout=5`) on every row of the executions table.
 */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]);

/** The answer's end-to-end headers, names in lower case, repeated ones joined. */
function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    out[lower] = sanitize(Array.isArray(value) ? value.join(", ") : value);
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
