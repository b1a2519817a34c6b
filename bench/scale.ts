// Benchmark: how cost grows with data. Seeds SCALE_ORDERS orders, SCALE_EXECUTIONS execution rows
// and SCALE_EVENTS event-log rows, then measures order creation against the same system on an
// empty database (a twin started beside it; the two take turns, see turns.ts), the list
// endpoints' latency, paging deep into the event log,
// the fan-out of one event to SCALE_FANOUT_HOOKS hooks, and what one hook that never answers
// costs SCALE_HEALTHY_HOOKS healthy ones.
// Run: npm run bench:scale   (SCALE_ORDERS=1000000, SCALE_EXECUTIONS=5000000, SCALE_EVENTS=1000000,
//   SCALE_FANOUT_HOOKS=1000, SCALE_HEALTHY_HOOKS=100, SCALE_CUSTOMERS=600, SCALE_HANGING_TURNS=3,
//   BENCH_SECONDS=10, BENCH_TOPOLOGY=split|single)
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { createTestEnvironment } from "../test/support/environment.js";
import { formatCpuPerRequest, snapshotCpu } from "./cpu-accounting.js";
import { formatResult, runLoad } from "./load.js";
import { measureInTurns } from "./turns.js";
import { mean, median, ratioLine } from "./ratios.js";
import { formatResidentMemory } from "./resident-memory.js";
import { seedEvents, seedExecutions, seedOrders } from "./scale-seed.js";
import { settleDatabase } from "./settle-database.js";
import { startSystem } from "./system.js";

const orders = Number(process.env.SCALE_ORDERS ?? 1_000_000);
const executions = Number(process.env.SCALE_EXECUTIONS ?? 5_000_000);
const eventRows = Number(process.env.SCALE_EVENTS ?? 1_000_000);
const fanOutHooks = Number(process.env.SCALE_FANOUT_HOOKS ?? 1_000);
const healthyHooks = Number(process.env.SCALE_HEALTHY_HOOKS ?? 100);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const VACUUM_ONLY = { checkpoint: false };
const concurrency = 32;
const READ_WARMUP_MS = 5_000;
const HANGING_TURNS = Number(process.env.SCALE_HANGING_TURNS ?? 3);
const token = `api-bench-${randomBytes(24).toString("base64url")}`;
const run = randomBytes(3).toString("hex");

// Receivers: one that answers 204 at once and counts by path, one that never answers.
const arrivals = new Map<string, number>();
const arrivalTimes: number[] = [];
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(204).end();
    const group = String(req.url).split("/")[1];
    arrivals.set(group, (arrivals.get(group) ?? 0) + 1);
    if (group === "fanout") arrivalTimes.push(performance.now());
  });
});
const hanging = http.createServer(() => {}); // reads the request, never answers
await Promise.all([receiver, hanging].map((s) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))));
const origin = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

const systemEnv = (environment: Awaited<ReturnType<typeof createTestEnvironment>>) => ({
  ...environment.env,
  BOOTSTRAP_API_TOKEN: token,
  RATE_LIMIT_REQUESTS: "100000000",
  WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
});
const env = await createTestEnvironment();
const system = await startSystem(systemEnv(env));
// The reference for order creation: the same system on a database that stays empty.
const emptyEnv = await createTestEnvironment();
const emptySystem = await startSystem(systemEnv(emptyEnv));
let emptyStopped: Promise<void> | undefined;
const stopEmpty = () => (emptyStopped ??= emptySystem.stop());
const db = new pg.Client({ connectionString: env.databaseUrl });
await db.connect();
const json = { "content-type": "application/json", authorization: `Bearer ${token}` };
const apiOf =
  (baseUrl: string) =>
  async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}/v1${path}`, { method, headers: json, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? undefined : await response.json()) as T;
  };
const api = apiOf(system.baseUrl);
const waitFor = async (what: string, done: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

try {
  const tenantId = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
  let sequence = 0;
  /** A customer and a product on `baseUrl`'s system, and a request that creates an order for them. */
  const orderCreator = async (baseUrl: string) => {
    const call = apiOf(baseUrl);
    const customer = (await call<{ id: string }>("POST", "/customers", { name: "Scale Customer" })).id;
    const product = (await call<{ id: string }>("POST", "/products", { sku: `SCALE-${run}`, name: "Scale product", price: "19.99", currency: "EUR" })).id;
    return {
      customer,
      product,
      request: () => ({
        method: "POST" as const,
        path: "/v1/orders",
        headers: json,
        body: JSON.stringify({
          shortId: `S-${run}-${sequence++}`,
          customerId: customer,
          currency: "EUR",
          orderItems: [{ productId: product, quantity: 2, price: "19.99" }],
        }),
      }),
    };
  };
  const seeded = await orderCreator(system.baseUrl);
  const customerId = seeded.customer;
  const productId = seeded.product;
  const emptyOrders = await orderCreator(emptySystem.baseUrl);
  const load = { concurrency, durationMs: seconds * 1000, expectStatus: 201 };
  const prefixed = (prefix: string, pids: Record<string, number>) => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [prefix + name, pid]));
  process.stdout.write(
    `scale: ${orders.toLocaleString("en")} orders, ${executions.toLocaleString("en")} executions, ${eventRows.toLocaleString("en")} events; ${process.env.BENCH_TOPOLOGY ?? "split"} topology\n`,
  );

  const history = await api<{ id: string }>("POST", "/hooks", { name: "history", url: `${origin(receiver)}/history`, on: "product.deleted" });
  const seedStarted = performance.now();
  await seedOrders(db, tenantId, customerId, productId, orders);
  await seedExecutions(db, tenantId, history.id, `${origin(receiver)}/history`, executions);
  await seedEvents(db, tenantId, eventRows);
  process.stdout.write(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s\n`);

  // The seed's WAL (gigabytes) is checkpointed before the measurements, not during them; each
  // measurement starts from a vacuumed database (settle-database.ts).
  await runLoad(system.baseUrl, seeded.request, { ...load, durationMs: 3_000 }); // warm-up
  await runLoad(emptySystem.baseUrl, emptyOrders.request, { ...load, durationMs: 3_000 });
  const [full, empty] = await measureInTurns(
    [
      { name: "orders, seeded database", origin: system.baseUrl, request: seeded.request, databaseUrl: env.databaseUrl },
      { name: "orders, empty database", origin: emptySystem.baseUrl, request: emptyOrders.request, databaseUrl: emptyEnv.databaseUrl },
    ],
    { concurrency, seconds, expectStatus: 201, roots: { ...system.pids, ...prefixed("empty ", emptySystem.pids), "load generator": process.pid } },
  );
  process.stdout.write(`${formatResult("orders, empty database", empty.result)}\n${empty.cpu}\n`);
  process.stdout.write(`${formatResult("orders, seeded database", full.result)}\n${full.cpu}\n`);
  process.stdout.write(ratioLine("orders seeded / empty", full.result.perSecond / empty.result.perSecond, 0.8));
  await stopEmpty(); // the rest measures the seeded system alone

  const roots = { ...system.pids, "load generator": process.pid };
  const reads = { concurrency: 8, durationMs: Math.max(3_000, (seconds * 1000) / 2), expectStatus: 200 };
  const get = (path: string) => () => ({ method: "GET" as const, path, headers: json });
  for (const [name, path] of [
    ["GET /v1/orders?status=completed", "/v1/orders?status=completed&limit=20"],
    ["GET /v1/orders?status=cancelled", "/v1/orders?status=cancelled&limit=100"],
    ["GET /v1/hooks/{id}/executions", `/v1/hooks/${history.id}/executions?limit=20`],
  ] as const) {
    // Warm, as every measured path here: the first seconds of a path's load pay for compiling its
    // code (the optimising compiler's threads are CPU of the same processes; after 2 s of warming
    // the next 5 s still ran up to a third slower than the 5 s after them).
    await settleDatabase(env.databaseUrl, VACUUM_ONLY);
    await runLoad(system.baseUrl, get(path), { ...reads, durationMs: READ_WARMUP_MS });
    // One client alone first: what a request costs in time when it waits for no other.
    const alone = await runLoad(system.baseUrl, get(path), { ...reads, concurrency: 1, durationMs: 3_000 });
    const cpuBefore = snapshotCpu(roots);
    const result = await runLoad(system.baseUrl, get(path), reads);
    process.stdout.write(`${formatResult(name, result)}\n${formatCpuPerRequest(cpuBefore, snapshotCpu(roots), result.requests)}\n`);
    process.stdout.write(`  alone (1 client): p50 ${alone.p50Ms.toFixed(1)} ms, p99 ${alone.p99Ms.toFixed(1)} ms\n`);
    process.stdout.write(`latency ${name} p99 ms: ${result.p99Ms.toFixed(1)} (target < 25)\n`);
  }
  const memory = formatResidentMemory(system.pids);
  if (memory) process.stdout.write(`after the reads:\n${memory}\n`);
  // Deep paging: follow nextCursor through the log, timing each page.
  await settleDatabase(env.databaseUrl, VACUUM_ONLY);
  const pageTimes: number[] = [];
  let cursor: string | null = null;
  const pages = Math.min(500, Math.ceil(eventRows / 100));
  for (let page = 0; page < pages; page++) {
    const t0 = performance.now();
    const body: { nextCursor: string | null } = await api("GET", `/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    pageTimes.push(performance.now() - t0);
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  const sortedPages = [...pageTimes].sort((a, b) => a - b);
  process.stdout.write(
    `GET /v1/events paged ${pageTimes.length} pages of 100 deep: first ${pageTimes[0].toFixed(1)} ms, last ${pageTimes.at(-1)!.toFixed(1)} ms, p99 ${sortedPages[Math.floor(0.99 * (sortedPages.length - 1))].toFixed(1)} ms\n`,
  );
  process.stdout.write(`latency GET /v1/events deep page p99 ms: ${sortedPages[Math.floor(0.99 * (sortedPages.length - 1))].toFixed(1)} (target < 25)\n`);

  // Fan-out: one event to many hooks.
  for (let i = 0; i < fanOutHooks; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, fanOutHooks - i) }, (_, j) =>
        api("POST", "/hooks", { name: `fan ${i + j}`, url: `${origin(receiver)}/fanout/${i + j}`, on: "customer.updated" }),
      ),
    );
  }
  arrivalTimes.length = 0;
  const fanStart = performance.now();
  await api("PUT", `/customers/${customerId}`, { name: "Scale Customer (renamed)" });
  await waitFor(`${fanOutHooks} fan-out deliveries`, () => (arrivals.get("fanout") ?? 0) >= fanOutHooks, 120_000);
  const fanOutMs = Math.max(...arrivalTimes) - fanStart;
  process.stdout.write(`fan-out of one event to ${fanOutHooks} hooks: all delivered in ${fanOutMs.toFixed(0)} ms (target < 2000)\n`);

  // A hook that never answers among healthy ones: healthy deliveries per second without, then with it.
  const healthy = [];
  for (let i = 0; i < healthyHooks; i += 50) {
    healthy.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, healthyHooks - i) }, (_, j) =>
          api<{ id: string }>("POST", "/hooks", { name: `healthy ${i + j}`, url: `${origin(receiver)}/healthy/${i + j}`, on: "customer.created" }),
        ),
      )),
    );
  }
  const healthyRate = async (customers: number) => {
    const before = arrivals.get("healthy") ?? 0;
    const t0 = performance.now();
    for (let i = 0; i < customers; i += 10) await Promise.all(Array.from({ length: 10 }, (_, j) => api("POST", "/customers", { name: `c ${i + j}` })));
    await waitFor("healthy deliveries", () => (arrivals.get("healthy") ?? 0) - before >= customers * healthyHooks, 300_000);
    return (customers * healthyHooks) / ((performance.now() - t0) / 1000);
  };
  // 600 events (60,000 healthy deliveries, about 6 s here) a measurement: with 200 (about 2 s) the
  // rate without the hanging hook alone moved 8,600–11,200/s between turns of one run.
  const customers = Number(process.env.SCALE_CUSTOMERS ?? 600);
  await healthyRate(200); // warm-up: with 20, the first turn's rate without the hook was always its slowest
  // Without and with the hanging hook in turns (it is paused and resumed between them), three
  // times: measured once each, minutes of this machine's drift apart, the ratio swung 0.86–1.04.
  // Each turn measures in the order A B B A (without, with, with, without; the next turn B A A B)
  // and compares the means: a drift of the machine's speed during the turn (its rate without the
  // hook moved 4,100–5,400/s between turns of one run) then favours neither side.
  const hangingHook = await api<{ id: string }>("POST", "/hooks", { name: "never answers", url: `${origin(hanging)}/hang`, on: "customer.created" });
  const measure = async (status: "paused" | "active") => {
    await api("PUT", `/hooks/${hangingHook.id}`, { status });
    return healthyRate(customers);
  };
  // One cycle of each, not counted: the first measurement after the warm-up was the fastest of
  // the bench in three benches on 2026-11-29 (9,407, 8,496 and 11,099 deliveries/s without the
  // hook, against 7,462, 7,006 and 7,223 at the end of that same turn; later turns stayed near the
  // latter), so the first turn's ratio (0.70, 0.83, 0.92) measured that start more than the hook.
  await measure("paused");
  await measure("active");
  const ratios: number[] = [];
  for (let turn = 0; turn < HANGING_TURNS; turn++) {
    const order: ("paused" | "active")[] = turn % 2 === 0 ? ["paused", "active", "active", "paused"] : ["active", "paused", "paused", "active"];
    const rates = { paused: [] as number[], active: [] as number[] };
    for (const status of order) rates[status].push(await measure(status));
    const without = mean(rates.paused);
    const withHanging = mean(rates.active);
    ratios.push(withHanging / without);
    process.stdout.write(
      `healthy deliveries/s: ${without.toFixed(0)} without a hanging hook (${rates.paused.map((r) => r.toFixed(0)).join(", ")}), ` +
        `${withHanging.toFixed(0)} with one (${rates.active.map((r) => r.toFixed(0)).join(", ")}) (${healthy.length} healthy hooks, ${customers} events each)\n`,
    );
  }
  process.stdout.write(ratioLine("healthy hooks with a hanging one / without", median(ratios), 0.9, `turns: ${ratios.map((r) => r.toFixed(2)).join(", ")}`));
} finally {
  await db.end();
  await Promise.allSettled([system.stop(), stopEmpty()]);
  await env.cleanup();
  await emptyEnv.cleanup();
  receiver.closeAllConnections();
  hanging.closeAllConnections();
  receiver.close();
  hanging.close();
}
