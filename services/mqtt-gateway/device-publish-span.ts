// The span of a device's MQTT publish (tracing on): the root of the message's trace (MQTT 3.1.1
// carries no trace context), from the PUBLISH to the PUBACK, i.e. until the bus stored it. The
// stored message (or reading event) carries its traceparent, so what follows from it joins it.
import { contextFrom, runInContext } from "@waybill/platform/context.js";
import type { Logger } from "@waybill/platform/logger.js";
import { isTracingAny, startSpan, type TraceSpan } from "@waybill/platform/tracing.js";

export function devicePublishSpan(logger: Logger, device: { tenantId: string; deviceId: string }, channel: string, qos: number): TraceSpan | undefined {
  if (!isTracingAny()) return undefined;
  return startSpan(logger, `MQTT PUBLISH ${channel}`, "server", undefined, {
    "messaging.system": "mqtt",
    "messaging.operation.type": "receive",
    "waybill.tenant.id": device.tenantId,
    "waybill.device.id": device.deviceId,
    "waybill.mqtt.qos": qos,
  });
}

/** Runs `fn` in an operation of the span (its traceparent goes on with what `fn` publishes). */
export function inSpan<T>(span: TraceSpan | undefined, fn: () => T): T {
  return span ? runInContext(contextFrom(undefined, undefined, undefined, span), fn) : fn();
}
