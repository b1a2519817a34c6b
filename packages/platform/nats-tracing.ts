// Spans of JetStream messages (tracing on): a producer span per durable publish, child of the
// traceparent in the message's headers, which it replaces with its own; a consumer span per
// message handled, child of that. The outbox row's traceparent is the span of its write.
import type { JsMsg } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { TRACEPARENT_HEADER, type OperationContext } from "./context.js";
import type { Logger } from "./logger.js";
import { isTracingAny, startSpan, type SpanAttributes, type TraceSpan } from "./tracing.js";

const MSG_ID_HEADER = "Nats-Msg-Id";
/** The service each connection publishes for (connectBus names it), keyed by the bus. */
const publishers = new WeakMap<object, Logger>();

export function rememberPublisher(bus: object, logger: Logger): void {
  publishers.set(bus, logger);
}

/** A producer span for a publish whose headers carry a traceparent; its own goes in their place. */
export function publishSpan(bus: object, subject: string, msgId: string, headers: MsgHdrs | undefined): TraceSpan | undefined {
  if (!isTracingAny() || !headers) return undefined;
  const logger = publishers.get(bus);
  const parent = headers.get(TRACEPARENT_HEADER);
  if (!logger || !parent) return undefined;
  const span = startSpan(logger, "send", "producer", parent, messagingAttributes(subject, msgId, "send"));
  if (span) headers.set(TRACEPARENT_HEADER, span.traceparent);
  return span;
}

/** Ends a publish's span: named by the stream that stored the message, or failed. */
export function endPublishSpan(span: TraceSpan, stream: string | undefined, error?: unknown): void {
  if (stream) span.updateName(`send ${stream}`);
  if (error !== undefined) span.fail(error);
  span.end();
}

/** The consumer span of a message handled by `durable`. */
export function consumeSpan(logger: Logger, durable: string, message: JsMsg): TraceSpan | undefined {
  if (!isTracingAny()) return undefined;
  return startSpan(logger, `process ${message.info.stream}`, "consumer", message.headers?.get(TRACEPARENT_HEADER) || undefined, {
    ...messagingAttributes(message.subject, message.headers?.get(MSG_ID_HEADER) || undefined, "process"),
    "messaging.consumer.group.name": durable,
    "messaging.message.delivery_count": message.info.deliveryCount,
  });
}

/**
 * The traceparent an outbox row carries: the span of its write (a child of the operation's span)
 * when tracing, else the operation's own.
 */
export function outboxTraceparent(context: OperationContext | undefined): string | undefined {
  if (!context?.span) return context?.traceparent;
  const span = context.span.startChild("outbox write", "producer", { "messaging.system": "nats", "messaging.operation.type": "create" });
  span.end();
  return span.traceparent;
}

function messagingAttributes(subject: string, msgId: string | undefined, operation: string): SpanAttributes {
  return { "messaging.system": "nats", "messaging.destination.name": subject, "messaging.message.id": msgId, "messaging.operation.type": operation };
}
