// The webhooks benchmark's same-work floor: one Node process doing a dispatcher's durable work
// by hand. A JetStream pull consumer reads the event messages; for each event and each hook it
// signs (HMAC-SHA256), POSTs with undici to the receiver with at most CONCURRENCY_PER_HOOK
// requests in flight per hook, inserts one execution row per attempt (rows of many deliveries
// go in one multi-row insert, synchronous_commit on), and acks an event only after every one of
// its executions committed. A hook's place is free again once its receiver has answered, as the
// dispatcher's lanes do: holding it through the insert's commit halved this floor (about 6,000
// deliveries/s instead of 9,000–11,000), which made it no yardstick. Prints "ready" once
// consuming; runs until SIGTERM.
// With FLOOR_EVENT_LOG=1 (a context yardstick, not the target's) it also keeps an event log as the
// dispatcher does before delivering: each event is inserted (ON CONFLICT DO NOTHING) into a table
// with the dispatcher's columns and indexes (floor-event-log.ts), many events per multi-row insert,
// and its deliveries start once that insert has committed.
// Env: NATS_URL, DATABASE_URL, FLOOR_STREAM, FLOOR_HOOKS (JSON [{id,url,secret}]), CONCURRENCY_PER_HOOK,
// FLOOR_SCHEMA (default webhooks_floor), FLOOR_EVENT_LOG, FLOOR_EVENT_BATCH, FLOOR_EVENT_LINGER_MS.
import { AckPolicy, jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { Agent, request } from "undici";
import { newId } from "@waybill/platform/ids.js";
import { TENANT_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { createExecutionTable, executionRecord, INSERT_EXECUTIONS, signedHeaders, type ExecutionRow, type FloorHook } from "./floor-executions.js";
import { eventLogRow } from "../services/dispatcher/event-log-row.js";
import { createEventLogTable, INSERT_EVENTS } from "./floor-event-log.js";

const SCHEMA = process.env.FLOOR_SCHEMA ?? "webhooks_floor";
const keepsEventLog = process.env.FLOOR_EVENT_LOG === "1";
const FLUSH_ROWS = 200;
const FLUSH_DELAY_MS = 2;
const stream = process.env.FLOOR_STREAM ?? "WEBHOOKS_FLOOR";
const hooks = JSON.parse(process.env.FLOOR_HOOKS ?? "[]") as FloorHook[];
const perHook = Number(process.env.CONCURRENCY_PER_HOOK ?? 8);

const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
await createExecutionTable(db, SCHEMA);
if (keepsEventLog) await createEventLogTable(db, SCHEMA);
const agent = new Agent({ connections: hooks.length * perHook, keepAliveTimeout: 30_000 });

/**
 * Rows wait here for the next multi-row insert (`write`): at most `maxRows`, or what came within
 * `delayMs` of the first. Each add resolves once its insert has committed (it carries the ack it
 * unblocks).
 */
function rowBatcher<T>(write: (rows: T[]) => Promise<unknown>, maxRows: number, delayMs: number): (row: T) => Promise<void> {
  let pending: { row: T; done: () => void }[] = [];
  let _timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    _timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    await write(batch.map((b) => b.row));
    for (const b of batch) b.done();
  };
  return (row) =>
    new Promise((resolve, reject) => {
      pending.push({ row, done: resolve });
      if (pending.length >= maxRows) void flush().catch(reject);
      else _timer ??= setTimeout(() => void flush().catch(reject), delayMs);
    });
}

const record = rowBatcher(
  (rows: ExecutionRow[]) => db.query(INSERT_EXECUTIONS(SCHEMA), [JSON.stringify(rows.map(executionRecord))]),
  FLUSH_ROWS,
  FLUSH_DELAY_MS,
);
// Event-log rows wait with the limits of the dispatcher's intake (the bench passes them): with the
// executions' 2 ms, a statement held about 5 events at 2,500 a second, and their fixed cost made
// this yardstick's PostgreSQL CPU per delivery higher than Waybill's.
const logEvent = rowBatcher(
  (rows: string[]) => db.query(INSERT_EVENTS(SCHEMA), [`[${rows.join(",")}]`]),
  Number(process.env.FLOOR_EVENT_BATCH ?? 500),
  Number(process.env.FLOOR_EVENT_LINGER_MS ?? 10),
);

// Per-hook concurrency: a counting semaphore per hook.
const lanes = new Map(hooks.map((h) => [h.id, { active: 0, waiting: [] as (() => void)[] }]));
async function inLane<T>(hookId: string, work: () => Promise<T>): Promise<T> {
  const lane = lanes.get(hookId)!;
  if (lane.active >= perHook) await new Promise<void>((resolve) => lane.waiting.push(resolve));
  lane.active += 1;
  try {
    return await work();
  } finally {
    lane.active -= 1;
    lane.waiting.shift()?.();
  }
}

/** Sends one delivery; resolves once the receiver answered, with the promise of its row's commit. */
async function deliver(hook: FloorHook, eventId: string, body: string): Promise<{ recorded: Promise<void> }> {
  const requestedAt = new Date().toISOString();
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  try {
    const response = await request(hook.url, { method: "POST", headers: signedHeaders(hook, body), body, dispatcher: agent });
    await response.body.dump();
    statusCode = response.statusCode;
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const recorded = record({
    id: newId("exe"),
    hookId: hook.id,
    eventId,
    url: hook.url,
    requestedAt,
    durationMs: Math.round(performance.now() - started),
    outcome: ok ? "succeeded" : "failed",
    statusCode,
    error,
  });
  return { recorded };
}

async function handle(message: JsMsg): Promise<void> {
  const body = message.string();
  const event = JSON.parse(body) as { id: string; kind: string; time: string; transactionId: string };
  const eventId = event.id;
  if (keepsEventLog) await logEvent(eventLogRow(message.headers?.get(TENANT_ID_NATS_HEADER) ?? "", event, body, message.seq));
  const recorded = await Promise.all(hooks.map((hook) => inLane(hook.id, () => deliver(hook, eventId, body))));
  await Promise.all(recorded.map((r) => r.recorded));
  message.ack();
}

const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
const jsm = await jetstreamManager(nc);
await jsm.consumers.add(stream, {
  durable_name: "floor",
  ack_policy: AckPolicy.Explicit,
  max_ack_pending: hooks.length * perHook * 8,
  ack_wait: 30_000_000_000,
});
const consumer = await jetstream(nc).consumers.get(stream, "floor");
const messages = await consumer.consume({ max_messages: hooks.length * perHook * 4 });
process.stdout.write("ready\n");
process.on("SIGTERM", async () => {
  await messages.close();
  await nc.close();
  await db.end();
  await agent.close();
  process.exit(0);
});
for await (const message of messages) {
  void handle(message).catch((error) => {
    process.stderr.write(`floor: ${String(error)}\n`);
    message.nak();
  });
}
