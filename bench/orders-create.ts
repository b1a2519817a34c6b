// Benchmark: orders created per second over HTTP through the whole system (edge → auth → orders
// over gRPC → PostgreSQL + outbox → JetStream → dispatcher), with an api token and with a session
// JWT, next to two yardsticks measured in the same run: the same-work floor (one Koa process that
// validates with the same schema, writes order + lines + outbox row in one transaction and relays
// the outbox to JetStream: bench/orders-floor-server.ts) and, as context, a bare single-row insert.
// Each of BENCH_RUNS runs measures all four, in turns; the ratio lines give every run and the median.
// Run: npm run bench:orders   (BENCH_SECONDS, BENCH_WARMUP_SECONDS per subject, BENCH_SLICE_SECONDS, BENCH_CONCURRENCY, BENCH_RUNS, BENCH_TOPOLOGY=split|single)
import { randomBytes } from "node:crypto";
import { formatResult, runLoad } from "./load.js";
import { median, ratioLine, spread } from "./ratios.js";
import { startSystem } from "./system.js";
import { measureInTurns, SLICE_SECONDS } from "./turns.js";
import { createTestEnvironment } from "../test/support/environment.js";
import { runTs } from "../test/support/processes.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const runs = Number(process.env.BENCH_RUNS ?? 3);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 20);
const run = randomBytes(3).toString("hex");
const token = `api-bench-${randomBytes(24).toString("base64url")}`;
const admin = { email: "bench@waybill.test", password: `pw-${randomBytes(9).toString("hex")}` };

const env = await createTestEnvironment();
const system = await startSystem({
  ...env.env,
  BOOTSTRAP_API_TOKEN: token,
  BOOTSTRAP_ADMIN_EMAIL: admin.email,
  BOOTSTRAP_ADMIN_PASSWORD: admin.password,
  RATE_LIMIT_REQUESTS: "100000000",
});
const bare = runTs("bench/bare-orders-server.ts", { DATABASE_URL: env.databaseUrl });
const floor = runTs("bench/orders-floor-server.ts", { DATABASE_URL: env.databaseUrl, NATS_URL: env.natsUrl, FLOOR_STREAM: `${env.streamPrefix}FLOOR` });
try {
  const base = system.baseUrl;
  const bareOrigin = `http://127.0.0.1:${(await bare.waitForOutput(/listening (\d+)/))[1]}`;
  const floorOrigin = `http://127.0.0.1:${(await floor.waitForOutput(/listening (\d+)/))[1]}`;
  const json = { "content-type": "application/json" };
  const jwt = ((await (await fetch(`${base}/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify(admin) })).json()) as { accessToken: string })
    .accessToken;
  const customer = await fetch(`${base}/v1/customers`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: "Bench Customer" }),
  });
  if (customer.status !== 201) throw new Error(`could not create the bench customer: ${customer.status} ${await customer.text()}`);
  const customerId = ((await customer.json()) as { id: string }).id;
  // Orders name an existing product of the tenant (the bare baseline stores the same id).
  const product = await fetch(`${base}/v1/products`, {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${token}` },
    body: JSON.stringify({ sku: `BENCH-${run}`, name: "Bench product" }),
  });
  if (product.status !== 201) throw new Error(`could not create the bench product: ${product.status} ${await product.text()}`);
  const productId = ((await product.json()) as { id: string }).id;

  // shortId is unique per tenant, so every request of every run gets the next number.
  let sequence = 0;
  const order = () =>
    JSON.stringify({ shortId: `B-${run}-${sequence++}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 2, price: "19.99" }] });
  const waybill = (credential: string) => () => ({
    method: "POST" as const,
    path: "/v1/orders",
    headers: { ...json, authorization: `Bearer ${credential}` },
    body: order(),
  });
  const bareRequest = () => ({ method: "POST" as const, path: "/orders", headers: json, body: order() });
  const floorRequest = () => ({ method: "POST" as const, path: "/orders", headers: json, body: order() });
  const options = { concurrency, durationMs: seconds * 1000, expectStatus: 201 };

  process.stdout.write(
    `orders-create: ${concurrency} concurrent clients, ${warmupSeconds} s warm-up and ${seconds} s per subject and run in turns of ${SLICE_SECONDS} s, ${runs} runs, loopback, ${process.env.BENCH_TOPOLOGY ?? "split"} topology\n`,
  );
  // Warm-up of every path measured (JIT, connection pools, PostgreSQL's caches), so that the
  // first measured run is not the one that pays for it. Waybill's processes hold more code than
  // the floor's one: after 3 s of load their optimising compilers still took ~11 % of the machine
  // (perf, 5 s sampled after ~10 s of load), ~1.5 % at 30 s and ~0.4 % at 60 s; the first run
  // then came out 0.04-0.10 below the later two. Each subject gets the same warm-up.
  const warmup = { ...options, durationMs: warmupSeconds * 1000 };
  await runLoad(base, waybill(token), warmup);
  await runLoad(base, waybill(jwt), warmup);
  await runLoad(bareOrigin, bareRequest, warmup);
  await runLoad(floorOrigin, floorRequest, warmup);
  // CPU of every process involved, per request: the services, the bare server, the load
  // generator (this process), PostgreSQL and nats-server.
  const roots = { ...system.pids, "bare server": bare.process.pid!, "floor server": floor.process.pid!, "load generator": process.pid };
  // Each run measures the four subjects in turns (turns.ts).
  const subjects = [
    { name: "waybill POST /v1/orders, api token", origin: base, request: waybill(token), databaseUrl: env.databaseUrl },
    { name: "waybill POST /v1/orders, session JWT", origin: base, request: waybill(jwt), databaseUrl: env.databaseUrl },
    { name: "same-work floor (koa+tx+outbox+relay)", origin: floorOrigin, request: floorRequest, databaseUrl: env.databaseUrl },
    { name: "bare koa + pg insert (context)", origin: bareOrigin, request: bareRequest, databaseUrl: env.databaseUrl },
  ];
  const measureRun = () => measureInTurns(subjects, { concurrency, seconds, expectStatus: 201, roots });
  const perRun = { token: [] as number[], jwt: [] as number[], floor: [] as number[], bare: [] as number[], p99: [] as number[], floorP99: [] as number[] };
  for (let i = 1; i <= runs; i++) {
    const [withToken, withJwt, sameWork, baseline] = await measureRun();
    process.stdout.write(`-- run ${i} of ${runs}\n`);
    for (const [j, measured] of [withToken, withJwt, sameWork, baseline].entries()) {
      process.stdout.write(`${formatResult(subjects[j].name, measured.result)}\n${measured.cpu}\n`);
    }
    perRun.token.push(withToken.result.perSecond);
    perRun.jwt.push(withJwt.result.perSecond);
    perRun.floor.push(sameWork.result.perSecond);
    perRun.bare.push(baseline.result.perSecond);
    perRun.p99.push(withToken.result.p99Ms);
    perRun.floorP99.push(sameWork.result.p99Ms);
  }
  const ratios = perRun.token.map((t, i) => t / perRun.floor[i]);
  process.stdout.write(`-- summary over ${runs} runs: median (min–max)\n`);
  process.stdout.write(
    `waybill orders/s ${spread(perRun.token)}, p99 ms ${spread(perRun.p99, 1)}; floor ${spread(perRun.floor)}, p99 ms ${spread(perRun.floorP99, 1)}; bare insert ${spread(perRun.bare)}\n`,
  );
  // Issue 36's target: the split topology at least as fast as one hand-written process.
  process.stdout.write(ratioLine("orders / same-work floor", median(ratios), 1.0, `runs: ${ratios.map((r) => r.toFixed(2)).join(", ")}`));
  process.stdout.write(`latency orders p99 ms: ${median(perRun.p99).toFixed(1)} (target < 50)\n`);
  process.stdout.write(ratioLine("orders / bare insert (context)", median(perRun.token.map((t, i) => t / perRun.bare[i]))));
  process.stdout.write(
    ratioLine("JWT / api token", median(perRun.jwt.map((j, i) => j / perRun.token[i])), undefined, "auth adds no gRPC round trip either way"),
  );
} finally {
  bare.process.kill("SIGTERM");
  floor.process.kill("SIGTERM");
  await Promise.allSettled([system.stop(), bare.exited(10_000), floor.exited(10_000)]);
  await env.cleanup();
}
