// The operation a piece of work belongs to: carried in HTTP headers, gRPC metadata and NATS
// headers so that one request can be followed across services and its events share one
// transaction id. A W3C `traceparent` travels the same way (HTTP, gRPC metadata, NATS headers of
// every event and delivery), so a tracing backend can join the hops; each hop is a new span of
// the caller's trace.
import { AsyncLocalStorage } from "node:async_hooks";
import { newId, randomHex } from "./ids.js";
import type { TraceSpan } from "./tracing.js";

export interface OperationContext {
  requestId: string;
  transactionId: string;
  /** W3C Trace Context: 00-<trace id>-<this hop's span id>-<flags>. */
  traceparent: string;
  /** The hop's span when tracing is on (tracing.ts); `traceparent` is then this span's. */
  span?: TraceSpan;
}

const storage = new AsyncLocalStorage<OperationContext>();

export const REQUEST_ID_HEADER = "x-request-id";
export const TRANSACTION_ID_HEADER = "x-transaction-id";
export const TRACEPARENT_HEADER = "traceparent";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * The traceparent of this hop: the caller's trace id and flags with a new span id, or a new
 * trace (not sampled) when the caller sent none or an invalid one.
 */
export function childTraceparent(incoming: string | undefined): string {
  const parent = incoming ? parentTrace(incoming) : undefined;
  const span = randomHex(8);
  if (parent) return `00-${parent.traceId}-${span}-${parent.flags}`;
  return `00-${randomHex(16)}-${span}-00`;
}

/**
 * The last traceparent a child was made of, as parsed: the deliveries of one event each make a
 * child of the same one, one after the other, and the regular expression ran for every delivery.
 */
let lastIncoming: string | undefined;
let lastParent: { traceId: string; flags: string } | undefined;

/** The trace id and flags of a valid traceparent (undefined: invalid, or an all-zero trace or span id). */
function parentTrace(incoming: string): { traceId: string; flags: string } | undefined {
  if (incoming !== lastIncoming) {
    const match = TRACEPARENT.exec(incoming);
    lastParent = match && match[1] !== ZERO_TRACE && match[2] !== ZERO_SPAN ? { traceId: match[1], flags: match[3] } : undefined;
    lastIncoming = incoming;
  }
  return lastParent;
}

export function currentContext(): OperationContext | undefined {
  return storage.getStore();
}

export function runInContext<T>(context: OperationContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The transaction id of the current operation, or a fresh one when there is none. */
export function currentTransactionId(): string {
  return storage.getStore()?.transactionId ?? newId("txn");
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What a client may send as X-Transaction-Id to group several of its requests into one
 * operation: the txn_ prefix of our ids and a body of 10 to 64 letters and digits.
 */
export const CLIENT_TRANSACTION_ID = /^txn_[0-9A-Za-z]{10,64}$/;

export function isClientTransactionId(value: string): boolean {
  return CLIENT_TRANSACTION_ID.test(value);
}

/**
 * Builds a context from incoming values, replacing anything missing or unsafe to log. With a
 * span (tracing on), the hop's traceparent is the span's, already a child of `traceparent`.
 */
export function contextFrom(requestId: string | undefined, transactionId: string | undefined, traceparent?: string, span?: TraceSpan): OperationContext {
  return new HopContext(requestId && SAFE_ID.test(requestId) ? requestId : undefined, transactionId, traceparent, span);
}

/**
 * A hop's context. A request id and a span id made for a hop that arrived without them are made
 * when first read: most hops of a consumer (a webhook delivery, an event taken in) never read them
 * (only a log line or an outgoing call does), and a ULID per delivery showed in the dispatcher's
 * profile. (Getters: a spread of a context would miss them; `toJSON` gives every field.)
 */
class HopContext implements OperationContext {
  readonly transactionId: string;
  span?: TraceSpan;
  #requestId: string | undefined;
  #traceparent: string | undefined;
  readonly #incomingTraceparent: string | undefined;

  constructor(requestId: string | undefined, transactionId: string | undefined, incomingTraceparent: string | undefined, span: TraceSpan | undefined) {
    this.transactionId = transactionId && SAFE_ID.test(transactionId) ? transactionId : newId("txn");
    this.#requestId = requestId;
    this.#incomingTraceparent = incomingTraceparent;
    if (span) {
      this.span = span;
      this.#traceparent = span.traceparent;
    }
  }

  get requestId(): string {
    this.#requestId ??= newId("req");
    return this.#requestId;
  }

  get traceparent(): string {
    this.#traceparent ??= childTraceparent(this.#incomingTraceparent);
    return this.#traceparent;
  }

  toJSON(): OperationContext {
    return { requestId: this.requestId, transactionId: this.transactionId, traceparent: this.traceparent, ...(this.span ? { span: this.span } : {}) };
  }
}
