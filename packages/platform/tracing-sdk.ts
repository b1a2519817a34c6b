// The OpenTelemetry SDK behind tracing.ts, imported only when tracing is on. One provider per
// service (its own service.name), not registered globally: spans are started with their parent
// given explicitly from the hop's traceparent, so no context manager or patched module is needed.
// The SDK reads the other standard variables itself: OTEL_TRACES_SAMPLER(_ARG),
// OTEL_BSP_* (batching), OTEL_EXPORTER_OTLP_(TRACES_)HEADERS / _TIMEOUT / _COMPRESSION,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_SPAN_*_LIMIT.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Context, type Span, type SpanContext } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import type { ServiceTracer, SpanAttributes, SpanKindName, TraceSpan } from "./tracing.js";

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = "0".repeat(32);
const INVALID_SPAN = "0".repeat(16);

/** The parent a traceparent names, or the root (a new trace) when it is absent or malformed. */
export function parentContext(traceparent: string | undefined): Context {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!match || match[1] === INVALID_TRACE || match[2] === INVALID_SPAN) return ROOT_CONTEXT;
  const parent: SpanContext = { traceId: match[1], spanId: match[2], traceFlags: Number.parseInt(match[3], 16) & TraceFlags.SAMPLED, isRemote: true };
  return trace.setSpanContext(ROOT_CONTEXT, parent);
}

export function traceparentOf(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

export interface ServiceTracerOptions {
  /** The service's own name (the tracer's name). */
  service: string;
  /** service.name of the resource. */
  serviceName: string;
  /** Full URL of the collector's traces endpoint. */
  url: string;
}

export function createServiceTracer(options: ServiceTracerOptions): ServiceTracer {
  // OTEL_RESOURCE_ATTRIBUTES may name the service too; OTEL_SERVICE_NAME (or our default) wins.
  const resource = defaultResource()
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url }))],
  });
  const tracer = provider.getTracer(`waybill-${options.service}`);

  const wrap = (span: Span): TraceSpan => ({
    traceparent: traceparentOf(span.spanContext()),
    setAttributes: (attributes) => void span.setAttributes(defined(attributes)),
    updateName: (name) => void span.updateName(name),
    fail(error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof Error) span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
    end: () => span.end(),
    startChild: (name, kind, attributes) =>
      wrap(tracer.startSpan(name, { kind: KINDS[kind], attributes: attributes && defined(attributes) }, trace.setSpan(ROOT_CONTEXT, span))),
  });

  return {
    startSpan: (name, kind, parent, attributes) =>
      wrap(tracer.startSpan(name, { kind: KINDS[kind], attributes: attributes && defined(attributes) }, parentContext(parent))),
    shutdown: () => provider.shutdown(),
  };
}

function defined(attributes: SpanAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}
