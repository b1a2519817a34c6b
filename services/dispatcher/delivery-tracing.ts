// Spans of webhook deliveries (tracing on): one per delivery taken by the scheduler, child of the
// traceparent the event or DELIVERIES message carried, and one HTTP client span per POST, whose
// traceparent the receiver gets, so a receiver that traces continues the same trace.
import { currentContext, TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import type { Logger } from "@waybill/platform/logger.js";
import { isTracingAny, startSpan, type TraceSpan } from "@waybill/platform/tracing.js";
import type { AttemptOutcome, Delivery } from "./delivery.js";
import type { SendResult } from "./sender.js";

export function deliverySpan(logger: Logger, delivery: Delivery, parent: string | undefined): TraceSpan | undefined {
  if (!isTracingAny()) return undefined;
  return startSpan(logger, `deliver ${delivery.eventKind}`, "internal", parent, {
    "waybill.hook.id": delivery.hookId,
    "waybill.delivery.id": delivery.deliveryId,
    "waybill.event.id": delivery.eventId,
    "waybill.delivery.trigger": delivery.trigger,
  });
}

export function endDeliverySpan(span: TraceSpan | undefined, outcome: AttemptOutcome | undefined, error?: unknown): void {
  if (!span) return;
  if (outcome)
    span.setAttributes({
      "waybill.delivery.outcome": outcome.kind,
      "waybill.delivery.retry_in_ms": outcome.kind === "attempted" ? (outcome.retryInMs ?? undefined) : undefined,
    });
  if (error !== undefined) span.fail(error);
  span.end();
}

/**
 * Adds the operation's traceparent to a delivery's headers (a fresh object per attempt): the
 * client span's when tracing (returned, to end with the answer), else the hop's own.
 */
export function traceDeliveryRequest(headers: Record<string, string>, url: string, attempt: number): TraceSpan | undefined {
  const context = currentContext();
  if (!context) return undefined;
  const span = context.span ? deliveryClientSpan(context.span, url, attempt) : undefined;
  headers[TRACEPARENT_HEADER] = span?.traceparent ?? context.traceparent;
  return span;
}

function deliveryClientSpan(parent: TraceSpan, url: string, attempt: number): TraceSpan {
  const target = new URL(url);
  return parent.startChild("POST", "client", {
    "http.request.method": "POST",
    // Host and port only: a receiver's path or query may hold a credential of theirs.
    "server.address": target.hostname,
    "server.port": Number(target.port) || (target.protocol === "https:" ? 443 : 80),
    "http.request.resend_count": attempt > 1 ? attempt - 1 : undefined,
  });
}

export function endDeliveryClientSpan(span: TraceSpan | undefined, result: SendResult): void {
  if (!span) return;
  span.setAttributes({ "http.response.status_code": result.statusCode ?? undefined });
  if (!result.ok) span.fail(new Error(result.error ?? `HTTP ${result.statusCode}`));
  span.end();
}
