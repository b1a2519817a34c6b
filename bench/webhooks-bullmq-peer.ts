// The webhooks benchmark's peer: the stack a Node team would pick instead, BullMQ on Redis, used
// the way its documentation shows. One job per (event, hook) is enqueued by the benchmark; this
// process runs a Worker with the same total concurrency that signs, POSTs with undici, inserts
// the execution row in PostgreSQL (a plain INSERT … VALUES, as such a worker is written: the
// JSON-recordset statement the floor batches with is planned anew on every call, which slowed
// this peer by a tenth) and returns (which completes the job). Prints "ready" once the
// worker runs; runs until SIGTERM.
// Env: REDIS_URL, DATABASE_URL, PEER_QUEUE, PEER_HOOKS (JSON [{id,url,secret}]), PEER_CONCURRENCY.
import { Worker, type Job } from "bullmq";
import { Redis } from "ioredis";
import pg from "pg";
import { Agent, request } from "undici";
import { newId } from "@waybill/platform/ids.js";
import { createExecutionTable, signedHeaders, type FloorHook } from "./floor-executions.js";

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
  await db.query(
    `INSERT INTO ${SCHEMA}.executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, url, requested_at, duration_ms, outcome, status_code, error)
     VALUES ($1, 'ten_bench', $2, $3, $4, 'order.created', 'event', 1, $5, $6, $7, $8, $9, $10)`,
    [row.id, row.hookId, `${row.eventId}:${row.hookId}`, row.eventId, row.url, row.requestedAt, row.durationMs, row.outcome, row.statusCode, row.error],
  );
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
