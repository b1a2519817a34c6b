// gRPC between services: thin adapters that run plain async functions as unary handlers, carry
// the operation context in metadata, and move AppErrors across the wire as problem JSON in the
// status details so the caller rebuilds the same error with the same code.
import {
  Metadata,
  Server,
  ServerCredentials,
  status as GrpcStatus,
  type CallOptions,
  type ClientUnaryCall,
  type handleUnaryCall,
  type ServiceDefinition,
  type ServiceError,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { contextFrom, currentContext, REQUEST_ID_HEADER, runInContext, TRACEPARENT_HEADER, TRANSACTION_ID_HEADER } from "./context.js";
import { type AppError, errorFromProblem, grpcStatusOf, platformError, type ProblemDetails, toAppError } from "./errors.js";
import type { Logger } from "./logger.js";
import { endGrpcServerSpan, grpcServerSpan } from "./grpc-tracing.js";

export const GRPC_DEADLINE_MS = 10_000;
/** Flow-control window of each connection and call between services (see GRPC_CHANNEL_OPTIONS). */
export const GRPC_FLOW_CONTROL_WINDOW_BYTES = 4 * 1024 * 1024;
/**
 * Largest answer a caller takes from another service. A page of 100 of the largest orders (500
 * lines each), or of their events, is about 4.5 MB of JSON: over gRPC's default of 4 MiB, which
 * failed such a page with 503 upstream_failed. Requests stay limited to 4 MiB by the servers.
 */
export const GRPC_MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/**
 * Options of every channel between services. Channelz bookkeeping costs CPU on every call and
 * serves nothing here. Retries stay on, with no retry policy: the channel then only sends again a
 * call the server refused before running it, as when the call met the GOAWAY of a connection the
 * server closes for its age (with them off, calls fail that way whenever connections rotate under
 * load; grpc-connection-age.test.ts). Other failures reach the caller, which
 * retries through JetStream or its own client.
 */
export const GRPC_CHANNEL_OPTIONS = Object.freeze({
  // With a `dns:///name:port` target and a headless Service, the client opens a subchannel to
  // every pod address and spreads calls over them, instead of pinning one pod per connection.
  "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  "grpc.keepalive_time_ms": 30_000,
  "grpc.enable_channelz": 0,
  // HTTP/2's default 64 KiB flow-control window is shared by every call on a connection: a few
  // list pages answered at once (30 KB each for 100 orders) used it up, and each answer then
  // waited for a WINDOW_UPDATE round trip. The window is credit the receiver grants, not memory.
  "grpc-node.flow_control_window": GRPC_FLOW_CONTROL_WINDOW_BYTES,
  "grpc.max_receive_message_length": GRPC_MAX_ANSWER_BYTES,
});
export const GRPC_SHUTDOWN_GRACE_MS = 10_000;
/**
 * Servers close each connection after this age (plus a grace for calls in flight), so clients
 * re-resolve DNS and new or scaled-up pods get their share of the calls.
 */
export const GRPC_MAX_CONNECTION_AGE_MS = 5 * 60_000;
export const GRPC_MAX_CONNECTION_AGE_GRACE_MS = 30_000;

/** Turns `async (request) => response` into a grpc-js unary handler. */
export function unary<Req, Res>(logger: Logger, fn: (request: Req) => Promise<Res>): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const incoming = first(call.metadata, TRACEPARENT_HEADER);
    const span = grpcServerSpan(logger, call.getPath(), incoming);
    const context = contextFrom(first(call.metadata, REQUEST_ID_HEADER), first(call.metadata, TRANSACTION_ID_HEADER), incoming, span);
    runInContext(context, async () => {
      try {
        callback(null, await fn(call.request));
        endGrpcServerSpan(span, GrpcStatus.OK);
      } catch (thrown) {
        const error = handlerError(logger, thrown, call.getPath());
        callback({ code: grpcStatusOf(error), details: JSON.stringify(error.toProblem()) } as Partial<ServiceError> as ServiceError, null);
        endGrpcServerSpan(span, grpcStatusOf(error), error);
      }
    });
  };
}

/** What a handler threw, as the AppError its caller gets; logged when it is the service's fault. */
export function handlerError(logger: Logger, thrown: unknown, path: string): AppError {
  const error = toAppError(thrown);
  if (error.status >= 500) logger.error({ err: thrown, path }, "gRPC handler failed");
  return error;
}

function first(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === "string" ? value : undefined;
}

export interface GrpcServerHandle {
  port: number;
  stop(): Promise<void>;
}

export async function startGrpcServer(host: string, port: number, services: [ServiceDefinition, UntypedServiceImplementation][]): Promise<GrpcServerHandle> {
  const server = new Server({
    "grpc.max_receive_message_length": 4 * 1024 * 1024,
    "grpc.enable_channelz": 0,
    "grpc.max_connection_age_ms": GRPC_MAX_CONNECTION_AGE_MS,
    "grpc.max_connection_age_grace_ms": GRPC_MAX_CONNECTION_AGE_GRACE_MS,
  });
  for (const [definition, implementation] of services) server.addService(definition, implementation);
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
  );
  return {
    port: boundPort,
    stop: () =>
      new Promise<void>((resolve) => {
        // Let calls in flight finish, but never wait forever.
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, GRPC_SHUTDOWN_GRACE_MS);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** Calls a unary method with the current operation context and a deadline; errors become AppErrors. */
export function callUnary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, deadlineMs = GRPC_DEADLINE_MS): Promise<Res> {
  const metadata = new Metadata();
  const context = currentContext();
  if (context) {
    metadata.set(REQUEST_ID_HEADER, context.requestId);
    metadata.set(TRANSACTION_ID_HEADER, context.transactionId);
    metadata.set(TRACEPARENT_HEADER, context.traceparent);
  }
  return new Promise((resolve, reject) => {
    method(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) => {
      if (error) reject(fromServiceError(error));
      else resolve(response);
    });
  });
}

/** The AppError a caller sees for a failed call: the callee's own error, or what the transport says. */
export function fromServiceError(error: ServiceError): AppError {
  const ours = errorFromProblemJson(error.details);
  if (ours) return ours;
  // Not one of ours: a transport failure.
  if (error.code === GrpcStatus.UNAVAILABLE || error.code === GrpcStatus.DEADLINE_EXCEEDED) {
    return platformError("upstream_unavailable", "A backing service did not answer; try again.", { cause: error });
  }
  return platformError("upstream_failed", "A backing service failed.", { cause: error });
}

/** The AppError a callee's problem JSON describes, or undefined when the text is not one. */
export function errorFromProblemJson(json: string | undefined): AppError | undefined {
  try {
    const problem = JSON.parse(json ?? "") as ProblemDetails;
    if (typeof problem.code === "string" && typeof problem.status === "number") return errorFromProblem(problem);
  } catch {
    // Not JSON.
  }
  return undefined;
}
