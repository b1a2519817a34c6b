// Micro benchmark: what tracing costs per hop in the adapters, off (OTEL_EXPORTER_OTLP_ENDPOINT
// unset: the default) and on, next to the same adapters as they were before tracing existed.
//   - gRPC handler: grpc.ts's unary() on a call (metadata with a traceparent) — before (its code
//     without the span lines, copied below), off, on;
//   - consumer hop: the context of a JetStream message (consumer.ts) — before, off, on;
//   - outbox headers: outboxHeaders() inside an operation — before, off, on.
// On, spans go to an OTLP/HTTP sink in this process that discards them; the time includes their
// export (the flush at the end), and the queue is large enough that none is dropped.
// Each measure runs BENCH_ROUNDS times in turns; the lines give the median CPU ns per operation
// (this process's user + system time, so other load on the machine does not count).
// Run: npm run bench:tracing   (BENCH_OPS, BENCH_ROUNDS)
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Metadata } from "@grpc/grpc-js";
import type { JsMsg } from "@nats-io/jetstream";
import { headers } from "@nats-io/transport-node";
import { contextFrom, REQUEST_ID_HEADER, runInContext, TRACEPARENT_HEADER, TRANSACTION_ID_HEADER, currentContext } from "../packages/platform/context.js";
import { unary } from "../packages/platform/grpc.js";
import { createLogger } from "../packages/platform/logger.js";
import { consumeSpan } from "../packages/platform/nats-tracing.js";
import { outboxHeaders } from "../packages/platform/outbox.js";
import { TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER } from "../packages/platform/nats.js";
import { startTracing, tracingState } from "../packages/platform/tracing.js";
import { median } from "./ratios.js";

const OPS = Number(process.env.BENCH_OPS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
process.env.OTEL_BSP_MAX_QUEUE_SIZE ??= String(OPS * 4);
process.env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ??= "2048";

const logger = createLogger("bench", "silent");
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const PATH = "/waybill.orders.v1.OrdersService/GetOrder";

function grpcCall() {
  const metadata = new Metadata();
  metadata.set(REQUEST_ID_HEADER, "req_bench");
  metadata.set(TRANSACTION_ID_HEADER, "txn_01jcbenchbenchbench");
  metadata.set(TRACEPARENT_HEADER, TRACEPARENT);
  return { metadata, request: { id: "ord_1" }, getPath: () => PATH };
}

/** grpc.ts's unary() as it was before tracing (the same code without the span lines). */
function unaryBefore(fn: (request: unknown) => Promise<unknown>) {
  return (call: ReturnType<typeof grpcCall>, callback: (error: unknown, value: unknown) => void) => {
    const first = (key: string) => {
      const value = call.metadata.get(key)[0];
      return typeof value === "string" ? value : undefined;
    };
    const context = contextFrom(first(REQUEST_ID_HEADER), first(TRANSACTION_ID_HEADER), first(TRACEPARENT_HEADER));
    runInContext(context, async () => {
      try {
        callback(null, await fn(call.request));
      } catch (thrown) {
        callback(thrown, null);
      }
    });
  };
}

const answer = async () => ({ order: {} });
const handlers = { before: unaryBefore(answer), after: unary(logger, answer) as unknown as ReturnType<typeof unaryBefore> };

async function grpcHandler(which: "before" | "after"): Promise<void> {
  const handler = handlers[which];
  const call = grpcCall();
  for (let i = 0; i < OPS; i++) await new Promise<void>((resolve) => handler(call, () => resolve()));
}

const message = (() => {
  const h = headers();
  h.set(TRANSACTION_ID_NATS_HEADER, "txn_01jcbenchbenchbench");
  h.set(TRACEPARENT_HEADER, TRACEPARENT);
  h.set("Nats-Msg-Id", "evt_1");
  return { headers: h, subject: "events.t.order.created", info: { stream: "EVENTS", deliveryCount: 1 } } as unknown as JsMsg;
})();

async function consumerHop(which: "before" | "after"): Promise<void> {
  for (let i = 0; i < OPS; i++) {
    const span = which === "after" ? consumeSpan(logger, "bench", message) : undefined;
    const context = contextFrom(
      undefined,
      message.headers?.get(TRANSACTION_ID_NATS_HEADER) || undefined,
      message.headers?.get(TRACEPARENT_HEADER) || undefined,
      span,
    );
    await runInContext(context, async () => {});
    span?.end();
  }
}

async function outboxWrite(which: "before" | "after"): Promise<void> {
  await runInContext(contextFrom(undefined, undefined, TRACEPARENT), async () => {
    // Inside an operation with a span when tracing is on, as an adapter would have made it.
    const hop = currentContext()!;
    for (let i = 0; i < OPS; i++) {
      if (which === "after") outboxHeaders("ten_1", hop.transactionId);
      else {
        const traceparent = currentContext()?.traceparent;
        void {
          [TRANSACTION_ID_NATS_HEADER]: hop.transactionId,
          [TENANT_ID_NATS_HEADER]: "ten_1",
          ...(traceparent ? { [TRACEPARENT_HEADER]: traceparent } : {}),
        };
      }
    }
  });
}

/** CPU time (user + system) of this process per operation: other processes on a shared machine do not count. */
async function timeNs(run: () => Promise<void>): Promise<number> {
  const started = process.cpuUsage();
  await run();
  const used = process.cpuUsage(started);
  return ((used.user + used.system) * 1_000) / OPS;
}

type Measure = { name: string; run: (which: "before" | "after") => Promise<void> };
const measures: Measure[] = [
  { name: "gRPC handler", run: grpcHandler },
  { name: "consumer hop", run: consumerHop },
  { name: "outbox headers", run: outboxWrite },
];

async function measureAll(mode: "before" | "off" | "on", flush: () => Promise<void>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of measures)
    out[m.name] = await timeNs(async () => {
      await m.run(mode === "before" ? "before" : "after");
      await flush();
    });
  return out;
}

// A sink for the "on" rounds: an OTLP/HTTP endpoint that reads and discards.
let exported = 0;
const sink = http.createServer((req, res) => {
  let bytes = 0;
  req.on("data", (c: Buffer) => (bytes += c.length));
  req.on("end", () => {
    exported += bytes;
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

const results: Record<"before" | "off" | "on", Record<string, number[]>> = { before: {}, off: {}, on: {} };
const record = (mode: "before" | "off" | "on", values: Record<string, number>) => {
  for (const [name, ns] of Object.entries(values)) {
    results[mode][name] ??= [];
    results[mode][name].push(ns);
  }
};

// Warm-up, then rounds in turns: before, off, on.
await measureAll("before", async () => {});
await measureAll("off", async () => {});
const sdkLoadedWhileOff = tracingState().sdkLoaded;
for (let round = 0; round < ROUNDS; round++) {
  record("before", await measureAll("before", async () => {}));
  record("off", await measureAll("off", async () => {}));
  const tracing = await startTracing("bench", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, logger);
  // The flush is the tracer's shutdown: every span of the measure exported before the clock stops.
  let current = tracing;
  record(
    "on",
    await measureAll("on", async () => {
      await current.stop();
      current = await startTracing("bench", { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, logger);
    }),
  );
  await current.stop();
}
sink.close();

console.log(`tracing-overhead: ${OPS} operations per measure, median of ${ROUNDS} rounds in turns, CPU ns per operation (Node ${process.version})`);
console.log(`SDK loaded while off: ${sdkLoadedWhileOff}; exported while on: ${(exported / 1e6).toFixed(1)} MB of OTLP JSON`);
for (const m of measures) {
  const [before, off, on] = (["before", "off", "on"] as const).map((mode) => median(results[mode][m.name]));
  console.log(
    `${m.name.padEnd(15)} before ${before.toFixed(0).padStart(6)}   off ${off.toFixed(0).padStart(6)} (${signed(off - before)})   on ${on.toFixed(0).padStart(6)} (${signed(on - before)})`,
  );
}

function signed(ns: number): string {
  return `${ns >= 0 ? "+" : ""}${ns.toFixed(0)} ns`;
}
