// Batched unary calls over a real grpc-js server on 127.0.0.1: calls made together travel as one,
// each is answered as a single call would have been (its own result, error and context), and a
// batch that cannot be sent fails each of its calls without sending any again.
import { credentials, makeGenericClientConstructor, type ServiceDefinition, type UntypedServiceImplementation } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { contextFrom, currentContext, runInContext } from "./context.js";
import { AppError } from "./errors.js";
import { GRPC_CHANNEL_OPTIONS, startGrpcServer, unary, type GrpcServerHandle, type UnaryMethod } from "./grpc.js";
import { batchedUnary, batchingCaller, UNBATCHED_FOR_MS, type BatchingOptions, type BatchRequest, type BatchResponse } from "./grpc-batch.js";
import { jsonUnaryMethod } from "./testing/grpc-unary-methods.js";
import { createLogger } from "./logger.js";

interface Echo {
  n: number;
  requestId?: string;
  transactionId?: string;
}

const definition = { echoes: jsonUnaryMethod("/test.Batch/Echoes"), echo: jsonUnaryMethod("/test.Batch/Echo") } as unknown as ServiceDefinition;
const Client = makeGenericClientConstructor(definition, "Batch");
const logger = createLogger("grpc-batch-test", "silent");

let server: GrpcServerHandle | undefined;
let client: { echoes: UnaryMethod<BatchRequest<Echo>, BatchResponse<Echo>>; echo: UnaryMethod<Echo, Echo>; close(): void };
afterEach(async () => {
  client?.close();
  await server?.stop();
  server = undefined;
});

/** Echoes a call with the context it ran in; n = 3 is refused. */
const echoHandler =
  (hold?: Promise<void>) =>
  async ({ n }: Echo): Promise<Echo> => {
    await hold;
    if (n === 3) throw new AppError("three_refused", { status: 409, title: "Conflict" }, "three is refused");
    const context = currentContext();
    return { n, requestId: context?.requestId, transactionId: context?.transactionId };
  };

/**
 * A server with the echo as a batched and a single method (`batching: false`: the single one only,
 * as a version from before the batched one); records the size of each batch and each single call.
 */
async function start(hold?: Promise<void>, batching = true): Promise<{ batches: number[]; singles: number[] }> {
  const batches: number[] = [];
  const singles: number[] = [];
  const batched = batchedUnary<Echo, Echo>(logger, echoHandler(hold)) as (call: unknown, callback: unknown) => void;
  const one = unary<Echo, Echo>(logger, echoHandler(hold)) as (call: unknown, callback: unknown) => void;
  const implementation: Record<string, unknown> = {
    echo: (call: { request: Echo }, callback: never) => {
      singles.push(call.request.n);
      one(call, callback);
    },
  };
  if (batching) {
    implementation.echoes = (call: { request: BatchRequest<Echo> }, callback: never) => {
      batches.push(call.request.calls.length);
      batched(call, callback);
    };
  }
  const served = batching ? definition : ({ echo: (definition as Record<string, unknown>).echo } as unknown as ServiceDefinition);
  server = await startGrpcServer("127.0.0.1", 0, [[served, implementation as UntypedServiceImplementation]]);
  client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure(), { ...GRPC_CHANNEL_OPTIONS }) as unknown as typeof client;
  return { batches, singles };
}

const callerOf = (options: BatchingOptions<Echo> = {}) => batchingCaller<Echo, Echo>(client.echoes.bind(client), client.echo.bind(client), options);

describe("batched gRPC calls", () => {
  it("sends calls made together as one, each answered with its own result, error and context", async () => {
    const { batches } = await start();
    const echo = callerOf();
    const outcomes = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => runInContext(contextFrom(`req-${n}`, `txn_batch${n}abcdefgh`), () => echo({ n }))));
    expect(batches).toEqual([5]);
    expect(outcomes.map((o) => (o.status === "fulfilled" ? o.value : { code: (o.reason as AppError).code, status: (o.reason as AppError).status }))).toEqual([
      { n: 1, requestId: "req-1", transactionId: "txn_batch1abcdefgh" },
      { n: 2, requestId: "req-2", transactionId: "txn_batch2abcdefgh" },
      { code: "three_refused", status: 409 },
      { n: 4, requestId: "req-4", transactionId: "txn_batch4abcdefgh" },
      { n: 5, requestId: "req-5", transactionId: "txn_batch5abcdefgh" },
    ]);
  });

  it("sends a call alone when nothing is in flight, and gathers those made meanwhile into the next batch", async () => {
    let release!: () => void;
    const { batches } = await start(new Promise<void>((resolve) => (release = resolve)));
    const echo = callerOf({ maxInFlight: 1 });
    const first = echo({ n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = [echo({ n: 2 }), echo({ n: 4 })];
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(batches).toEqual([1]);
    release();
    expect((await Promise.all([first, ...later])).map((answer) => answer.n)).toEqual([1, 2, 4]);
    expect(batches).toEqual([1, 2]);
  });

  it("keeps each batch within its weight; a call heavier than that goes alone", async () => {
    const { batches } = await start();
    const echo = callerOf({ weightOf: ({ n }) => (n === 5 ? 100 : 10), maxWeight: 25, maxInFlight: 8 });
    const answers = await Promise.all([1, 2, 4, 6, 5, 7].map((n) => echo({ n })));
    expect(answers.map((answer) => answer.n)).toEqual([1, 2, 4, 6, 5, 7]);
    expect(batches).toEqual([2, 2, 1, 1]);
  });

  it("falls back to single calls, in each call's context, when the server has no batched method yet; tries batching again later", async () => {
    const { singles } = await start(undefined, false);
    let clock = 1_000;
    let batchesTried = 0;
    const tryBatch: typeof client.echoes = (...args) => {
      batchesTried += 1;
      return client.echoes(...args);
    };
    const echo = batchingCaller<Echo, Echo>(tryBatch, client.echo.bind(client), { now: () => clock });
    const answers = await Promise.all([1, 2].map((n) => runInContext(contextFrom(`req-${n}`, `txn_single${n}abcdefg`), () => echo({ n }))));
    expect(answers).toEqual([
      { n: 1, requestId: "req-1", transactionId: "txn_single1abcdefg" },
      { n: 2, requestId: "req-2", transactionId: "txn_single2abcdefg" },
    ]);
    expect(batchesTried).toBe(1);
    expect((await echo({ n: 4 })).n).toBe(4);
    expect(batchesTried).toBe(1);
    expect(singles).toEqual([1, 2, 4]);
    clock += UNBATCHED_FOR_MS + 1;
    await expect(echo({ n: 3 })).rejects.toMatchObject({ code: "three_refused", status: 409 });
    expect(batchesTried).toBe(2);
    expect(singles).toEqual([1, 2, 4, 3]);
  });

  it("fails each call of a batch that cannot reach the server as upstream_unavailable", async () => {
    const { batches } = await start();
    await server!.stop();
    server = undefined;
    const echo = callerOf();
    const outcomes = await Promise.allSettled([echo({ n: 1 }), echo({ n: 2 })]);
    expect(outcomes.map((o) => o.status === "rejected" && (o.reason as AppError).code)).toEqual(["upstream_unavailable", "upstream_unavailable"]);
    expect(batches).toEqual([]);
  });
});
