// Soak: the split topology (each service its own process) under a steady mixed load for
// SOAK_MINUTES — orders created and moved ready → inProgress → completed, their events delivered
// to healthy hooks and to one whose receiver always fails, device readings over MQTT (QoS 1)
// delivered to a hook too — at about half of the capacity measured first (SOAK_PROBE_SECONDS of
// the same mix, closed loop). Every SOAK_SAMPLE_SECONDS it samples each service's resident memory
// and heap, p50/p99 of order creation and of event → receipt (the event's `time` to its arrival
// at the receiver), the oldest unpublished outbox row, the consumers' pending and unacknowledged
// messages, and the database's table and index sizes. At the end: whatever was created must have
// reached the healthy receiver (lost), a CSV and an SVG chart of the series, and ratio lines.
// Run: npm run soak   (SOAK_MINUTES=30, SOAK_SAMPLE_SECONDS=10, SOAK_WINDOW_MINUTES=min(5, minutes/6),
//   SOAK_WARMUP_MINUTES=min(10, minutes/6), SOAK_PROBE_SECONDS=10, SOAK_RATE=<units/s, instead of half the probe>, SOAK_OUT=<folder>)
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import mqtt from "mqtt";
import pg from "pg";
import { Pool } from "undici";
import { createTestEnvironment } from "../test/support/environment.js";
import { issueToken } from "../test/support/tokens.js";
import { renderChart, type Panel } from "./soak-chart.js";
import { startSystem } from "./system.js";

const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const sampleSeconds = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const windowMinutes = Number(process.env.SOAK_WINDOW_MINUTES ?? Math.min(5, minutes / 6));
// A second pair of p99 ratios takes its first window after the warm-up: the first minutes hold
// JIT warm-up and the failing hook's first breaker openings, which flatter "last / first".
const warmupMinutes = Number(process.env.SOAK_WARMUP_MINUTES ?? Math.min(10, minutes / 6));
const probeSeconds = Number(process.env.SOAK_PROBE_SECONDS ?? 10);
const drainSeconds = Number(process.env.SOAK_DRAIN_SECONDS ?? 120);
/** Units (an order through three status changes, and one device reading) in flight at most. */
const MAX_IN_FLIGHT = 64;
const PROBE_CONCURRENCY = 8;
const STATUSES = ["ready", "inProgress", "completed"];
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const outDir = process.env.SOAK_OUT ?? path.join(os.tmpdir(), `waybill-soak-${stamp}`);
const token = `api-soak-${randomBytes(24).toString("base64url")}`;
const run = randomBytes(3).toString("hex");
const log = (line: string) => process.stdout.write(`${line}\n`);

/** A growing series of (time, value) for percentiles over any window. */
class Timeline {
  times: number[] = [];
  values: number[] = [];
  add(at: number, value: number) {
    this.times.push(at);
    this.values.push(value);
  }
  /** The q-quantile of the values recorded in [from, to). */
  quantile(from: number, to: number, q: number): number {
    const picked: number[] = [];
    for (let i = 0; i < this.times.length; i++) if (this.times[i] >= from && this.times[i] < to) picked.push(this.values[i]);
    if (picked.length === 0) return Number.NaN;
    picked.sort((a, b) => a - b);
    return picked[Math.min(picked.length - 1, Math.floor(q * picked.length))];
  }
}

// The healthy receiver: what arrived (for "lost") and how long after its event occurred.
const creation = new Timeline();
const receipt = new Timeline();
const arrived = new Set<string>(); // "order:<id>", "status:<id>:<status>", "reading:<n>"
let failingRequests = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    res.writeHead(204).end();
    const now = Date.now();
    try {
      const event = JSON.parse(Buffer.concat(chunks).toString());
      receipt.add(now, now - Date.parse(event.time));
      if (event.kind === "order.created") arrived.add(`order:${event.orderId}`);
      else if (event.kind === "order.status.changed") arrived.add(`status:${event.orderId}:${event.currentOrderStatus}`);
      else if (event.kind === "device.reading" && typeof event.reading?.soak === "number") arrived.add(`reading:${event.reading.soak}`);
    } catch {
      // not an event of ours
    }
  });
});
const failing = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    failingRequests += 1;
    res.writeHead(503).end("down");
  });
});
await Promise.all([receiver, failing].map((s) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))));
const origin = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

const env = await createTestEnvironment();
const system = await startSystem({
  ...env.env,
  BOOTSTRAP_API_TOKEN: token,
  RATE_LIMIT_REQUESTS: "100000000",
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
});
// Ctrl-C stops the services it started (they run in process groups of their own) and removes the
// run's database and streams before exiting: a DELIVERIES stream left behind keeps the failing
// hook's waiting deliveries, and nats-server's work for them, until someone deletes it.
process.once("SIGINT", () => {
  log("soak: interrupted; stopping the services and removing the run's database and streams");
  void system
    .stop()
    .then(() => env.cleanup())
    .finally(() => process.exit(130));
});
const http1 = new Pool(system.baseUrl, { connections: MAX_IN_FLIGHT, pipelining: 1 });
const db = new pg.Client({ connectionString: env.databaseUrl });
await db.connect();
const nc = await connect({ servers: env.natsUrl });
const jsm = await jetstreamManager(nc);
let errors = 0;
const errorKinds = new Map<string, number>();
const error = (what: string) => {
  errors += 1;
  errorKinds.set(what, (errorKinds.get(what) ?? 0) + 1);
};

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read field by field
type Json = any;

async function api(method: "POST" | "GET", pathname: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const response = await http1.request({
    method,
    path: `/v1${pathname}`,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, json: text ? JSON.parse(text) : undefined };
}

try {
  const customer = await api("POST", "/customers", { name: "Soak customer" });
  const product = await api("POST", "/products", { sku: `SOAK-${run}`, name: "Soak product", price: "1.00", currency: "EUR" });
  await api("POST", "/inventory/adjustments", { productId: product.json.id, delta: 1_000_000_000, reason: "soak stock" });
  for (const [on, url] of [
    ["order.created", origin(receiver)],
    ["order.status.changed", origin(receiver)],
    ["device.reading", origin(receiver)],
    ["order.created", `${origin(failing)}/always-503`],
  ]) {
    const hook = await api("POST", "/hooks", { name: `soak ${on}`, url, on });
    if (hook.status !== 201) throw new Error(`hook ${on}: ${hook.status} ${JSON.stringify(hook.json)}`);
  }
  const sensor = await issueToken(env.databaseUrl, "sensor");
  const deviceId = `soak-${run}`;
  const device = await mqtt.connectAsync(system.mqttUrl, {
    username: deviceId,
    password: sensor.token,
    clientId: deviceId,
    protocolVersion: 4,
    reconnectPeriod: 1_000,
  });
  device.on("error", () => {});

  const created = new Set<string>();
  let readings = 0;
  let sequence = 0;
  /** One unit of the mix: an order created and taken through its statuses, and one device reading. */
  const unit = async (measure: boolean) => {
    const reading = readings++;
    const publish = device.publishAsync(`devices/${deviceId}/telemetry`, JSON.stringify({ soak: reading }), { qos: 1 }).then(
      () => true,
      () => {
        error("mqtt publish");
        return false;
      },
    );
    const started = performance.now();
    const order = await api("POST", "/orders", {
      shortId: `SK-${run}-${sequence++}`,
      customerId: customer.json.id,
      currency: "EUR",
      orderItems: [{ productId: product.json.id, quantity: 1, price: "1.00" }],
    }).catch(() => ({ status: 0, json: undefined }));
    if (order.status !== 201) {
      error(`create ${order.status}`);
      await publish;
      return;
    }
    if (measure) creation.add(Date.now(), performance.now() - started);
    created.add(order.json.id);
    for (const status of STATUSES) {
      const changed = await api("POST", `/orders/${order.json.id}/status`, { status }).catch(() => ({ status: 0, json: undefined }));
      if (changed.status !== 200) {
        error(`status ${status} ${changed.status}`);
        break;
      }
    }
    await publish;
  };
  const sentReadings = () => readings;

  // Capacity of this machine for the mix, closed loop, after a warm-up of the same length at most
  // 5 s (the services' first requests compile their code paths).
  const closedLoop = async (ms: number) => {
    const end = performance.now() + ms;
    const took: number[] = [];
    await Promise.all(
      Array.from({ length: PROBE_CONCURRENCY }, async () => {
        while (performance.now() < end) {
          const t0 = performance.now();
          await unit(false);
          took.push(performance.now() - t0);
        }
      }),
    );
    return took.sort((a, b) => a - b);
  };
  await closedLoop(Math.min(5, probeSeconds) * 1000);
  const probe = await closedLoop(probeSeconds * 1000);
  const capacity = probe.length / probeSeconds;
  const rate = Number(process.env.SOAK_RATE ?? capacity / 2);
  log(
    `soak: ${minutes} min at ${rate.toFixed(1)} units/s (capacity measured ${capacity.toFixed(1)} units/s, a unit taking ${probe[Math.floor(probe.length / 2)]?.toFixed(0)} ms at the median with ${PROBE_CONCURRENCY} at once; a unit = 1 order + 3 status changes + 1 device reading; sample every ${sampleSeconds} s, windows of ${windowMinutes} min); split topology; output in ${outDir}`,
  );
  const probeErrors = errors;

  // The steady load: a unit every 1/rate s (open loop), at most MAX_IN_FLIGHT at once.
  const startedAt = Date.now();
  const endsAt = startedAt + minutes * 60_000;
  let inFlight = 0;
  let skipped = 0;
  const running = new Set<Promise<void>>();
  const pacer = (async () => {
    let next = performance.now();
    while (Date.now() < endsAt) {
      next += 1000 / rate;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped += 1; // the system fell behind: counted, not queued without bound
        continue;
      }
      inFlight += 1;
      const p = unit(true).finally(() => {
        inFlight -= 1;
        running.delete(p);
      });
      running.add(p);
    }
  })();

  // Samples.
  const services = Object.keys(system.pids);
  const header = [
    "minute",
    ...services.flatMap((s) => [`${s}_rss_mb`, `${s}_heap_mb`]),
    "create_p50_ms",
    "create_p99_ms",
    "receipt_p50_ms",
    "receipt_p99_ms",
    "outbox_age_s",
    "consumer_pending",
    "consumer_ack_pending",
    "deliveries_ack_pending",
    "pg_tables_mb",
    "pg_indexes_mb",
    "units_per_s",
    "errors",
  ];
  const rows: number[][] = [];
  const csvRow = (r: number[]) => r.map((v) => (Number.isFinite(v) ? Number(v.toFixed(3)) : "")).join(",");
  // Written as it goes: an interrupted run keeps its series.
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "soak.csv"), `${header.join(",")}\n`);
  let lastSampleAt = startedAt;
  let lastCreated = created.size; // the probe's orders are not the soak's rate
  const sample = async () => {
    const now = Date.now();
    const row: number[] = [(now - startedAt) / 60_000];
    for (const service of services) row.push(residentMb(system.pids[service]), await heapMb(system.opsPorts[service]));
    row.push(
      creation.quantile(lastSampleAt, now, 0.5),
      creation.quantile(lastSampleAt, now, 0.99),
      receipt.quantile(lastSampleAt, now, 0.5),
      receipt.quantile(lastSampleAt, now, 0.99),
    );
    row.push(await outboxAgeSeconds(), ...(await consumerBacklog()), ...(await databaseSizesMb()));
    row.push(((created.size - lastCreated) * 1000) / Math.max(1, now - lastSampleAt), errors - probeErrors);
    lastCreated = created.size;
    lastSampleAt = now;
    rows.push(row);
    await appendFile(path.join(outDir, "soak.csv"), `${csvRow(row)}\n`);
    const at = (name: string) => row[header.indexOf(name)];
    log(
      `t=${row[0].toFixed(1)} min  rss MB ${services.map((s) => `${s} ${at(`${s}_rss_mb`).toFixed(0)}`).join(", ")}  create p99 ${at("create_p99_ms").toFixed(1)} ms  receipt p99 ${at("receipt_p99_ms").toFixed(0)} ms  outbox ${at("outbox_age_s").toFixed(1)} s  ack pending ${at("consumer_ack_pending")} (+${at("deliveries_ack_pending")} in DELIVERIES)  pg ${at("pg_tables_mb").toFixed(1)}+${at("pg_indexes_mb").toFixed(1)} MB  ${at("units_per_s").toFixed(1)} units/s  errors ${at("errors")}`,
    );
  };
  while (Date.now() < endsAt) {
    await new Promise((r) => setTimeout(r, Math.min(sampleSeconds * 1000, Math.max(0, endsAt - Date.now()))));
    await sample();
  }
  await pacer;
  await Promise.all(running);

  // Everything created must reach the healthy receiver.
  const expected = () => {
    const missing: string[] = [];
    for (const id of created) {
      if (!arrived.has(`order:${id}`)) missing.push(`order:${id}`);
      for (const status of STATUSES) if (!arrived.has(`status:${id}:${status}`)) missing.push(`status:${id}:${status}`);
    }
    for (let n = 0; n < sentReadings(); n++) if (!arrived.has(`reading:${n}`)) missing.push(`reading:${n}`);
    return missing;
  };
  const drainDeadline = Date.now() + drainSeconds * 1000;
  let missing = expected();
  while (missing.length > 0 && Date.now() < drainDeadline) {
    await new Promise((r) => setTimeout(r, 1_000));
    missing = expected();
  }
  // A reading whose publish failed (counted as an error) may be missing without being lost.
  const lost = missing.length;
  const endedAt = Date.now();

  const series = (name: string, label = name) => ({ name: label, points: rows.map((r) => [r[0], r[header.indexOf(name)]] as [number, number]) });
  const panels: Panel[] = [
    { title: "Resident memory", unit: "MB", series: services.map((s) => series(`${s}_rss_mb`, s)) },
    { title: "Heap used", unit: "MB", series: services.map((s) => series(`${s}_heap_mb`, s)) },
    { title: "Order creation", unit: "ms", series: [series("create_p50_ms", "p50"), series("create_p99_ms", "p99")] },
    { title: "Event → receipt", unit: "ms", series: [series("receipt_p50_ms", "p50"), series("receipt_p99_ms", "p99")] },
    { title: "Oldest unpublished outbox row", unit: "s", series: [series("outbox_age_s", "outbox age")] },
    {
      title: "Consumers",
      unit: "messages",
      series: [
        series("consumer_pending", "pending"),
        series("consumer_ack_pending", "ack pending"),
        series("deliveries_ack_pending", "DELIVERIES ack pending"),
      ],
    },
    { title: "PostgreSQL", unit: "MB", series: [series("pg_tables_mb", "tables"), series("pg_indexes_mb", "indexes")] },
  ];
  await writeFile(path.join(outDir, "soak.svg"), renderChart(`Waybill soak: ${minutes} min at ${rate.toFixed(1)} units/s (split topology)`, panels));

  // Ratios. Memory: the last half's growth, from the median of the samples around its start to
  // the median of the last ones (one sample is noisy: a collection may have just run).
  const lines: string[] = [];
  const ratio = (name: string, value: number, target: string) =>
    lines.push(`ratio ${name}: ${Number.isFinite(value) ? value.toFixed(2) : "n/a"} (target ${target})`);
  const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const half = Math.floor(rows.length / 2);
  const around = Math.max(1, Math.min(3, Math.floor(rows.length / 6)));
  for (const service of services) {
    const column = header.indexOf(`${service}_rss_mb`);
    const at = medianOf(rows.slice(half, half + around).map((r) => r[column]));
    const end = medianOf(rows.slice(-around).map((r) => r[column]));
    ratio(`resident memory growth over the last half ${service}`, end / at, "<= 1.05");
  }
  const windowMs = windowMinutes * 60_000;
  // The issue's ratio (last window / first window), and the stricter one whose first window
  // starts after the warm-up.
  const p99Ratio = (timeline: Timeline, from: number) => timeline.quantile(endsAt - windowMs, endsAt, 0.99) / timeline.quantile(from, from + windowMs, 0.99);
  const afterWarmup = startedAt + warmupMinutes * 60_000;
  const strict = `last ${windowMinutes} min / ${windowMinutes} min after a ${warmupMinutes}-min warm-up`;
  ratio(`order creation p99 last ${windowMinutes} min / first ${windowMinutes} min`, p99Ratio(creation, startedAt), "<= 1.20");
  ratio(`event to receipt p99 last ${windowMinutes} min / first ${windowMinutes} min`, p99Ratio(receipt, startedAt), "<= 1.20");
  ratio(`order creation p99 ${strict}`, p99Ratio(creation, afterWarmup), "<= 1.20");
  ratio(`event to receipt p99 ${strict}`, p99Ratio(receipt, afterWarmup), "<= 1.20");
  ratio("errors", errors - probeErrors, "= 0");
  ratio("lost", lost, "= 0");
  log(
    `soak: ${created.size} orders, ${sentReadings()} readings, ${failingRequests} requests to the failing hook, ${skipped} units skipped (system behind), drained ${((endedAt - endsAt) / 1000).toFixed(0)} s after the load`,
  );
  if (errorKinds.size > 0) log(`errors: ${[...errorKinds].map(([k, v]) => `${k} ×${v}`).join(", ")}`);
  if (missing.length > 0) log(`missing: ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? " …" : ""}`);
  log(`csv: ${path.join(outDir, "soak.csv")}\nchart: ${path.join(outDir, "soak.svg")}`);
  for (const line of lines) log(line);
  await device.endAsync();
} finally {
  await http1.close();
  await system.stop();
  await nc.close();
  await db.end();
  await env.cleanup().catch(() => {});
  receiver.closeAllConnections();
  failing.closeAllConnections();
  receiver.close();
  failing.close();
}

function residentMb(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

async function heapMb(opsPort: number | undefined): Promise<number> {
  if (!opsPort) return Number.NaN;
  try {
    const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    return Number(text.match(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})?\s+(\S+)/m)?.[1]) / 1024 / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Seconds since the oldest row still waiting in any service's outbox (0: none waits). */
async function outboxAgeSeconds(): Promise<number> {
  const { rows } = await db.query<{ schema: string }>("SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'outbox'");
  if (rows.length === 0) return 0;
  const union = rows.map((r) => `SELECT min(created_at) AS oldest FROM "${r.schema}".outbox`).join(" UNION ALL ");
  // clock_timestamp, not now(): a row whose transaction started a moment after this statement's
  // (and committed before its snapshot) read as -0.001 s with now(), which drew a negative axis.
  const { rows: ages } = await db.query<{ age: number | null }>(
    `SELECT greatest(0, extract(epoch FROM clock_timestamp() - min(oldest)))::float8 AS age FROM (${union}) o`,
  );
  return ages[0].age ?? 0;
}

/**
 * [pending, ack pending, ack pending of DELIVERIES] over the run's consumers. DELIVERIES is apart:
 * its unacknowledged messages include every delivery waiting for its next retry (the failing
 * hook's, 5 min and more apart), which grow through the run by design.
 */
async function consumerBacklog(): Promise<[number, number, number]> {
  let pending = 0;
  let ackPending = 0;
  let deliveriesAckPending = 0;
  for await (const stream of jsm.streams.names()) {
    if (!stream.startsWith(env.streamPrefix)) continue;
    for await (const consumer of jsm.consumers.list(stream)) {
      if (!consumer) continue;
      pending += consumer.num_pending;
      if (stream === env.topology.streamName("DELIVERIES")) deliveriesAckPending += consumer.num_ack_pending;
      else ackPending += consumer.num_ack_pending;
    }
  }
  return [pending, ackPending, deliveriesAckPending];
}

/** [tables, indexes] of the run's database in MB (the services' schemas). */
async function databaseSizesMb(): Promise<[number, number]> {
  const { rows } = await db.query<{ tables: string; indexes: string }>(
    `SELECT COALESCE(sum(pg_table_size(c.oid)), 0) AS tables, COALESCE(sum(pg_indexes_size(c.oid)), 0) AS indexes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'`,
  );
  return [Number(rows[0].tables) / 1024 / 1024, Number(rows[0].indexes) / 1024 / 1024];
}
