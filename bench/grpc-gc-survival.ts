// Benchmark: how much of each gRPC call outlives a young-generation collection in the calling
// process, as the edge calls the services: over the first rounds, and after a full collection
// forced during the load. What survives is copied by every scavenge and, once promoted, waits for
// a full collection; the socket buffers it holds count towards V8's external-memory trigger, which
// starts more full collections. Each line says how many full collections ran meanwhile. With
// Node's own AsyncResource#bind (GC_AS_NODE_HAS_IT=1), nearly every call survives on Node 20;
// on Node 24 most of a call survives either way (docs/upstream-reports.md).
// Run: npm run bench:gc-survival   (GC_CALLS_PER_ROUND=400, GC_ROUNDS=6, GC_ANSWER_BYTES=35000,
//   GC_AS_NODE_HAS_IT=0)
import { fork } from "node:child_process";
import v8 from "node:v8";
import * as grpc from "@grpc/grpc-js";
import { bytesUnaryMethod } from "@waybill/platform/testing/grpc-unary-methods.js";
import { createLogger } from "../packages/platform/logger.js";
import { installRuntimeFixes } from "../packages/platform/runtime-fixes.js";

const perRound = Number(process.env.GC_CALLS_PER_ROUND ?? 400);
const rounds = Number(process.env.GC_ROUNDS ?? 6);
const answerBytes = Number(process.env.GC_ANSWER_BYTES ?? 35_000); // a page of 100 orders
const CONCURRENCY = 8;
const SERVICE = { call: bytesUnaryMethod("/bench.Bench/Call") };

if (process.argv[2] === "server") {
  // The services' side, in a process of its own as in production.
  const server = new grpc.Server();
  const answer = Buffer.alloc(answerBytes, 97);
  server.addService(SERVICE, { call: (_call: unknown, callback: (error: null, answer: Buffer) => void) => callback(null, answer) });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    process.send!(port);
  });
} else {
  const gc = (globalThis as { gc?: (options?: { type: "minor" | "major" }) => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc (npm run bench:gc-survival does)");
  // As every service does at start; GC_AS_NODE_HAS_IT=1 leaves Node's own bind in place.
  if (process.env.GC_AS_NODE_HAS_IT !== "1") installRuntimeFixes({ logger: createLogger("bench", "warn") });
  const server = fork(import.meta.filename, ["server"], { execArgv: process.execArgv.filter((arg) => arg !== "--expose-gc") });
  const port = await new Promise<number>((resolve) => server.once("message", (message) => resolve(Number(message))));
  const Client = grpc.makeGenericClientConstructor(SERVICE, "Bench");
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as {
    call(request: Buffer, callback: (error: Error | null, answer: Buffer) => void): void;
    close(): void;
  };
  const call = () => new Promise<Buffer>((resolve, reject) => client.call(Buffer.from("x"), (error, answer) => (error ? reject(error) : resolve(answer))));
  const calls = (n: number) =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = 0; i < n / CONCURRENCY; i++) await call();
      }),
    );
  const youngBytes = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_used_size;
  const fullCollections = () => {
    let count = 0;
    const profiler = new v8.GCProfiler();
    profiler.start();
    return () => {
      for (const entry of profiler.stop().statistics) if (entry.gcType === "MarkSweepCompact") count++;
      return count;
    };
  };
  /** Bytes per call still in the young generation after one scavenge, per round. */
  const measure = async () => {
    const counted = fullCollections();
    const perCall: number[] = [];
    for (let round = 0; round < rounds; round++) {
      gc({ type: "minor" });
      await calls(perRound);
      gc({ type: "minor" });
      perCall.push(youngBytes() / perRound);
    }
    return { perCall, full: counted() };
  };
  const show = (label: string, m: { perCall: number[]; full: number }) => {
    const sorted = [...m.perCall].sort((a, b) => a - b);
    process.stdout.write(
      `${label}: bytes surviving a scavenge per call, median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} (rounds: ${m.perCall.map((b) => b.toFixed(0)).join(", ")}); full collections meanwhile: ${m.full}\n`,
    );
  };
  try {
    process.stdout.write(`grpc-gc-survival: unary calls, ${CONCURRENCY} at a time, ${answerBytes}-byte answers, ${rounds} rounds of ${perRound}\n`);
    await calls(2000); // warm
    show("first rounds", await measure());
    const during = calls(perRound * 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc({ type: "major" });
    await during;
    show("after a full collection forced during the load", await measure());
  } finally {
    client.close();
    server.kill();
  }
}
