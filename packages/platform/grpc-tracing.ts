// Spans of gRPC calls between services (tracing on): a server span per handled call, and a client
// span per call made, from an interceptor installed only on the clients of a service that traces.
// The client span replaces the traceparent that callUnary put in the metadata (or, in a batched
// call, each call's own traceparent in the message, grpc-batch.ts), so the server's span is the
// client span's child.
import { InterceptingCall, status as GrpcStatus, type Interceptor, type Metadata } from "@grpc/grpc-js";
import { TRACEPARENT_HEADER } from "./context.js";
import type { Logger } from "./logger.js";
import { isTracing, isTracingAny, startSpan, type SpanAttributes, type TraceSpan } from "./tracing.js";

/** rpc.* attributes of a method path, /package.Service/Method. */
export function rpcAttributes(path: string): SpanAttributes {
  const [service, method] = path.replace(/^\//, "").split("/");
  return { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method };
}

/** Span name of a method path: package.Service/Method. */
const spanName = (path: string) => path.replace(/^\//, "");

/** The server span of a handled call, child of the caller's traceparent; undefined when off. */
export function grpcServerSpan(logger: Logger, path: string, parent: string | undefined): TraceSpan | undefined {
  if (!isTracingAny()) return undefined;
  return startSpan(logger, spanName(path), "server", parent, rpcAttributes(path));
}

/**
 * Codes that make a server span an error, as the semantic conventions say: the service's faults,
 * not a caller's bad request (INVALID_ARGUMENT, NOT_FOUND… stay unset, as HTTP 4xx do).
 */
const SERVER_ERROR_CODES: ReadonlySet<number> = new Set([
  GrpcStatus.UNKNOWN,
  GrpcStatus.DEADLINE_EXCEEDED,
  GrpcStatus.UNIMPLEMENTED,
  GrpcStatus.INTERNAL,
  GrpcStatus.UNAVAILABLE,
  GrpcStatus.DATA_LOSS,
]);

/** Ends a server span with the call's outcome (a gRPC status code). */
export function endGrpcServerSpan(span: TraceSpan | undefined, code: number, error?: unknown): void {
  if (!span) return;
  span.setAttributes({ "rpc.grpc.status_code": code });
  if (error !== undefined && SERVER_ERROR_CODES.has(code)) span.fail(error);
  span.end();
}

/**
 * What a gRPC client of `service` adds to its options: the span interceptor when that service
 * traces (so create clients after startTracing); nothing, and no interceptor, when it does not.
 */
export function grpcClientTracing(service: string): { interceptors?: Interceptor[] } {
  return isTracing(service) ? { interceptors: [clientSpans(service)] } : {};
}

interface BatchedCalls {
  calls: { traceparent?: string }[];
}

const isBatch = (message: unknown): message is BatchedCalls => Array.isArray((message as Partial<BatchedCalls> | null)?.calls);

function clientSpans(service: string): Interceptor {
  return (options, nextCall) => {
    const path = options.method_definition.path;
    const spans: TraceSpan[] = [];
    const open = (parent: string | undefined): string | undefined => {
      const span = startSpan(service, spanName(path), "client", parent, rpcAttributes(path));
      if (!span) return undefined;
      spans.push(span);
      return span.traceparent;
    };
    return new InterceptingCall(nextCall(options), {
      start(metadata: Metadata, _listener, next) {
        // Only a call made inside an operation (callUnary) carries a traceparent to continue.
        const parent = metadata.get(TRACEPARENT_HEADER)[0];
        const traceparent = typeof parent === "string" ? open(parent) : undefined;
        if (traceparent) metadata.set(TRACEPARENT_HEADER, traceparent);
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            for (const span of spans) {
              span.setAttributes({ "rpc.grpc.status_code": status.code, "rpc.batch.size": spans.length > 1 ? spans.length : undefined });
              if (status.code !== GrpcStatus.OK) span.fail(new Error(`gRPC status ${status.code}`));
              span.end();
            }
            nextStatus(status);
          },
        });
      },
      sendMessage(message, next) {
        if (isBatch(message)) {
          for (const call of message.calls) {
            const traceparent = open(call.traceparent);
            if (traceparent) call.traceparent = traceparent;
          }
        }
        next(message);
      },
    });
  };
}
