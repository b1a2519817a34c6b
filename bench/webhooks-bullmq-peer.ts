// The webhooks benchmark's peer: the stack a Node team would pick instead, BullMQ on Redis, used
// the way its documentation shows. One job per (event, hook) is enqueued by the benchmark; this
// process runs a Worker with the same total concurrency that signs, POSTs with undici, inserts
// the execution row in PostgreSQL and returns (which completes the job). Prints "ready" once the
// worker runs; runs until SIGTERM.
// Env: REDIS_URL, DATABASE_URL, PEER_QUEUE, PEER_HOOKS (JSON [{id,url,secret}]), PEER_CONCURRENCY.
import { Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { Agent, request } from "undici";
import { newId } from "@waybill/platform/ids.js";
import { createExecutionTable, executionRecord, INSERT_EXECUTIONS, signedHeaders, type FloorHook } from "./floor-executions.js";

const SCHEMA = "webhooks_peer";
const hooks = new Map((JSON.parse(process.env.PEER_HOOKS ?? "[]") as FloorHook[]).map((h) => [h.id, h]));
const concurrency = Number(process.env.PEER_CONCURRENCY ?? 32);

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
await createExecutionTable(db, SCHEMA);
const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });

export interface DeliveryJob {
  hookId: string;
  eventId: string;
  body: string;
}

async function deliver(job: Job<DeliveryJob>): Promise<void> {
  const hook = hooks.get(job.data.hookId)!;
  const requestedAt = new Date().toISOString();
  const started = performance.now();
  const response = await request(hook.url, { method: "POST", headers: signedHeaders(hook, job.data.body), body: job.data.body, dispatcher: agent });
  await response.body.dump();
  const ok = response.statusCode >= 200 && response.statusCode < 300;
  const row = {
    id: newId("exe"),
    hookId: hook.id,
    eventId: job.data.eventId,
    url: hook.url,
    requestedAt,
    durationMs: Math.round(performance.now() - started),
    outcome: ok ? "succeeded" : "failed",
    statusCode: response.statusCode,
    error: null,
  } as const;
  await db.query(INSERT_EXECUTIONS(SCHEMA), [JSON.stringify([executionRecord(row)])]);
  // A failed attempt is retried by BullMQ (attempts and backoff are set when the job is added).
  if (!ok) throw new Error(`receiver answered ${response.statusCode}`);
}

const worker = new Worker<DeliveryJob>(process.env.PEER_QUEUE ?? "deliveries", deliver, {
  // BullMQ's documentation: a worker's connection must not give up on blocking commands.
  connection: new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null }),
  concurrency,
});
await worker.waitUntilReady();
process.stdout.write("ready\n");
process.on("SIGTERM", async () => {
  await worker.close();
  await db.end();
  await agent.close();
  process.exit(0);
});
