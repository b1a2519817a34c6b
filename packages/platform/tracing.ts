// OpenTelemetry tracing, off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set.
// The adapters (Koa middleware, gRPC handler and client, NATS publish and consume, the webhook
// delivery) ask this module for a span at each hop; the span's own context becomes the hop's
// `traceparent` (context.ts), so what is propagated and what is exported are the same span.
// Off, nothing of the SDK is loaded (tracing-sdk.ts is imported only when on) and startSpan
// answers undefined at its first test: no span, no id, no allocation.
// Services that share a process (npm start, tests) each get their own tracer and resource
// (service.name), found by name: the adapters know their service through its logger.
import { z } from "zod";
import type { Logger } from "./logger.js";

export type SpanKindName = "server" | "client" | "producer" | "consumer" | "internal";
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** One span of a hop. Its `traceparent` is what the hop sends on, so the next hop is its child. */
export interface TraceSpan {
  readonly traceparent: string;
  setAttributes(attributes: SpanAttributes): void;
  updateName(name: string): void;
  /** Marks the span failed with the error's message (status ERROR, an exception event). */
  fail(error: unknown): void;
  end(): void;
  startChild(name: string, kind: SpanKindName, attributes?: SpanAttributes): TraceSpan;
}

export interface ServiceTracer {
  /** A span whose parent is `parent` (a W3C traceparent), or the root of a new trace without one. */
  startSpan(name: string, kind: SpanKindName, parent: string | undefined, attributes?: SpanAttributes): TraceSpan;
  /** Exports what is buffered and stops the exporter. */
  shutdown(): Promise<void>;
}

/** The standard variables this project reads itself (the SDK reads the other OTEL_* ones). */
export const tracingConfigShape = {
  /** Base URL of an OTLP/HTTP collector (the exporter posts to <url>/v1/traces); unset: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** Full URL for traces, when they go elsewhere than OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** service.name of the spans; default: the service's own name (edge, orders…). */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** "true" turns tracing off even with an endpoint set. */
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).optional(),
  /** "none" turns tracing off too; "otlp" (the only exporter here) is the default. */
  OTEL_TRACES_EXPORTER: z.enum(["otlp", "none"]).optional(),
};

export interface TracingConfig {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_SDK_DISABLED?: "true" | "false";
  OTEL_TRACES_EXPORTER?: "otlp" | "none";
}

export interface TracingHandle {
  /** Whether this service exports spans. */
  readonly enabled: boolean;
  /** Flushes the spans still buffered and releases the exporter (the last user of it). */
  stop(): Promise<void>;
}

/** Where traces are posted, or undefined when tracing is off. */
export function tracesUrl(config: TracingConfig): string | undefined {
  if (config.OTEL_SDK_DISABLED === "true" || config.OTEL_TRACES_EXPORTER === "none") return undefined;
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, "")}/v1/traces` : undefined;
}

/** How long a stop waits for the last spans to reach the collector. */
export const TRACING_STOP_TIMEOUT_MS = 2_000;

const tracers = new Map<string, { tracer: ServiceTracer; users: number }>();
let sdkLoaded = false;

/**
 * Starts the tracer of `service` when the configuration names an endpoint. Services of one process
 * started under the same name share one tracer; it shuts down with the last of them.
 */
export async function startTracing(service: string, config: TracingConfig, logger: Logger): Promise<TracingHandle> {
  const url = tracesUrl(config);
  if (!url) return { enabled: false, stop: async () => {} };
  let entry = tracers.get(service);
  if (entry) entry.users += 1;
  else {
    const { createServiceTracer } = await import("./tracing-sdk.js");
    sdkLoaded = true;
    entry = { tracer: createServiceTracer({ service, serviceName: config.OTEL_SERVICE_NAME ?? service, url }), users: 1 };
    tracers.set(service, entry);
    logger.info({ url, serviceName: config.OTEL_SERVICE_NAME ?? service }, "tracing: exporting spans over OTLP/HTTP");
  }
  const started = entry;
  let stopped = false;
  return {
    enabled: true,
    async stop() {
      if (stopped) return;
      stopped = true;
      started.users -= 1;
      if (started.users > 0) return;
      if (tracers.get(service) === started) tracers.delete(service);
      // A collector that is down would hold the stop through the exporter's retries (8 s and more).
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), TRACING_STOP_TIMEOUT_MS);
        timer.unref();
      });
      const flushed = started.tracer.shutdown().then(
        () => "flushed" as const,
        (error: Error) => void logger.warn({ err: error.message }, "tracing: spans not exported at stop"),
      );
      if ((await Promise.race([flushed, late])) === "late")
        logger.warn({ timeoutMs: TRACING_STOP_TIMEOUT_MS }, "tracing: spans still unexported at stop; left behind");
      clearTimeout(timer);
    },
  };
}

const servicesOfLoggers = new WeakMap<Logger, string>();

/** The service a logger writes for (createLogger's `service` field), which names its tracer. */
function serviceOf(logger: Logger): string {
  let service = servicesOfLoggers.get(logger);
  if (service === undefined) {
    service = String((logger.bindings() as { service?: unknown }).service ?? "");
    servicesOfLoggers.set(logger, service);
  }
  return service;
}

/**
 * A span of `owner` (a service name, or a logger of that service), child of `parent`; undefined
 * when that service does not trace (always, when tracing is off).
 */
export function startSpan(
  owner: string | Logger,
  name: string,
  kind: SpanKindName,
  parent: string | undefined,
  attributes?: SpanAttributes,
): TraceSpan | undefined {
  if (tracers.size === 0) return undefined;
  return tracers.get(typeof owner === "string" ? owner : serviceOf(owner))?.tracer.startSpan(name, kind, parent, attributes);
}

/** Whether any service of this process traces: the first test of every span-making path. */
export function isTracingAny(): boolean {
  return tracers.size > 0;
}

/** Whether `service` has a tracer in this process (the gRPC client interceptor is installed then). */
export function isTracing(service: string): boolean {
  return tracers.has(service);
}

/** What this process has of tracing, for tests and diagnostics: the SDK loaded, services tracing. */
export function tracingState(): { sdkLoaded: boolean; services: string[] } {
  return { sdkLoaded, services: [...tracers.keys()] };
}

/** Ends `span` when `promise` settles (failed when it rejects); returns the promise unchanged. */
export function endWith<T>(span: TraceSpan | undefined, promise: Promise<T>): Promise<T> {
  if (!span) return promise;
  promise.then(
    () => span.end(),
    (error: unknown) => {
      span.fail(error);
      span.end();
    },
  );
  return promise;
}
