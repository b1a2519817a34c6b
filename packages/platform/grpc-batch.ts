// Calls of one unary method that reach a caller together, sent as one batched call. Each gRPC call
// costs its two ends a stream (HEADERS, DATA, trailers, a deadline timer, metadata): a fixed CPU
// cost per call whatever its size, a large share of what a small call costs in all. The
// batch carries each call with the context its metadata would have carried, and answers each with
// its own result or its own error, so a caller sees what a single call would have answered.
// The queue, its limits and when batches go out are batch-queue.ts's, as for batcher.ts.
import { Metadata, status as GrpcStatus, type handleUnaryCall, type ServiceError } from "@grpc/grpc-js";
import { contextFrom, currentContext, runInContext, type OperationContext } from "./context.js";
import { grpcStatusOf, platformError } from "./errors.js";
import { endGrpcServerSpan, grpcServerSpan } from "./grpc-tracing.js";
import { callUnary, errorFromProblemJson, fromServiceError, GRPC_DEADLINE_MS, handlerError, type UnaryMethod } from "./grpc.js";
import type { Logger } from "./logger.js";
import { createBatchQueue } from "./batch-queue.js";

/** Largest number of calls one batch carries. */
export const MAX_CALLS_PER_BATCH = 64;
/**
 * Batches in flight at once from one caller. Calls that arrive meanwhile form the next batch; two
 * let one batch be prepared while the callee commits the other.
 */
export const MAX_BATCHES_IN_FLIGHT = 2;

/** One call inside a batch, as the proto's `…Call` messages carry it. */
export interface BatchedCall<Req> {
  request: Req | undefined;
  requestId: string;
  transactionId: string;
  traceparent: string;
}

/** One call's result, as the proto's `…Result` messages carry it (one of the two is set). */
export interface BatchedResult<Res> {
  answer?: Res | undefined;
  problemJson?: string | undefined;
}

export interface BatchRequest<Req> {
  calls: BatchedCall<Req>[];
}
export interface BatchResponse<Res> {
  results: BatchedResult<Res>[];
}

/**
 * The handler of a batched method: runs `fn` for each call in that call's context, all at once,
 * and answers each call's result or its error as problem JSON (logged when it is the service's fault).
 */
export function batchedUnary<Req, Res>(logger: Logger, fn: (request: Req) => Promise<Res>): handleUnaryCall<BatchRequest<Req>, BatchResponse<Res>> {
  return (call, callback) => {
    const one = (item: BatchedCall<Req>): Promise<BatchedResult<Res>> => {
      const span = grpcServerSpan(logger, call.getPath(), item.traceparent);
      return runInContext(contextFrom(item.requestId, item.transactionId, item.traceparent, span), async () => {
        try {
          if (!item.request) throw new Error("a batched call without its request");
          const answer = await fn(item.request);
          endGrpcServerSpan(span, GrpcStatus.OK);
          return { answer };
        } catch (thrown) {
          const error = handlerError(logger, thrown, call.getPath());
          endGrpcServerSpan(span, grpcStatusOf(error), error);
          return { problemJson: JSON.stringify(error.toProblem()) };
        }
      });
    };
    Promise.all(call.request.calls.map(one)).then((results) => callback(null, { results }));
  };
}

/**
 * Largest weight of one batch (see BatchingOptions.weightOf): a quarter of the 4 MiB a gRPC
 * message may have, so that neither the batch nor its answers come near the limit. A call
 * heavier than this goes alone, as it would have unbatched.
 */
export const MAX_BATCH_WEIGHT = 1024 * 1024;

/** After a callee said it has no batched method, calls go to it one by one for this long. */
export const UNBATCHED_FOR_MS = 60_000;

export interface BatchingOptions<Req> {
  maxCalls?: number;
  maxInFlight?: number;
  /** An upper bound of a request's encoded size in bytes, cheap to compute (default: 0). */
  weightOf?: (request: Req) => number;
  maxWeight?: number;
  now?: () => number;
}

/**
 * A function of one request that sends the requests made in the same tick (and those made while
 * `maxInFlight` batches are out) as one call of `batched`. Without load each request goes out at
 * once, alone. A batch that fails as a whole (the callee unreachable, the deadline passed) fails
 * each of its calls with the error a single call would have had; none is sent again, since the
 * callee may have done them. A callee that does not know `batched` yet (an older version, during a
 * rolling update) has done none of them: they, and the calls of the next UNBATCHED_FOR_MS, go
 * through `single`.
 */
export function batchingCaller<Req, Res>(
  batched: UnaryMethod<BatchRequest<Req>, BatchResponse<Res>>,
  single: UnaryMethod<Req, Res>,
  options: BatchingOptions<Req> = {},
): (request: Req) => Promise<Res> {
  const now = options.now ?? Date.now;
  let unbatchedUntil = 0;

  const alone = (entry: Waiting<Req, Res>) => runInContext(entry.context, () => callUnary(single, entry.request)).then(entry.resolve, entry.reject);

  const answer = (batch: Waiting<Req, Res>[], error: ServiceError | null, response: BatchResponse<Res> | undefined) => {
    if (error && error.code === GrpcStatus.UNIMPLEMENTED) {
      unbatchedUntil = now() + UNBATCHED_FOR_MS;
      for (const entry of batch) alone(entry);
    } else if (error || !response) {
      for (const entry of batch) entry.reject(fromServiceError(error!));
    } else {
      for (const [i, entry] of batch.entries()) {
        const result = response.results[i];
        if (result?.answer) entry.resolve(result.answer);
        else
          entry.reject(
            errorFromProblemJson(result?.problemJson) ?? platformError("internal_error", "A backing service answered a batched call without its result."),
          );
      }
    }
  };

  const weightOf = options.weightOf ?? (() => 0);
  const queue = createBatchQueue<Waiting<Req, Res>>(
    (batch, done) => {
      const calls = batch.map(({ request, context }) => ({
        request,
        requestId: context.requestId,
        transactionId: context.transactionId,
        traceparent: context.traceparent,
      }));
      // The batch's own metadata carries no context: each call carries its own.
      batched({ calls }, new Metadata(), { deadline: Date.now() + GRPC_DEADLINE_MS }, (error, response) => {
        answer(batch, error, response);
        done();
      });
    },
    {
      maxItems: options.maxCalls ?? MAX_CALLS_PER_BATCH,
      maxInFlight: options.maxInFlight ?? MAX_BATCHES_IN_FLIGHT,
      weightOf: (entry) => weightOf(entry.request),
      maxWeight: options.maxWeight ?? MAX_BATCH_WEIGHT,
    },
  );

  return (request) =>
    new Promise<Res>((resolve, reject) => {
      const entry = { request, context: currentContext() ?? contextFrom(undefined, undefined), resolve, reject };
      if (unbatchedUntil > now()) return void alone(entry);
      queue.add(entry);
    });
}

interface Waiting<Req, Res> {
  request: Req;
  context: OperationContext;
  resolve: (response: Res) => void;
  reject: (error: unknown) => void;
}
