// Benchmark: orders created per second over HTTP through the whole system (edge → auth → orders
// over gRPC → PostgreSQL + outbox → JetStream → dispatcher), with an api token and with a session
// JWT, next to a bare Koa + pg single-row insert server measured in the same run.
// Run: npm run bench:orders   (BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_TOPOLOGY=split|single)
import { randomBytes } from "node:crypto";
import { formatCpuPerRequest, snapshotCpu } from "./cpu-accounting.js";
import { formatResult, runLoad, type LoadResult } from "./load.js";
import { startSystem } from "./system.js";
import { createTestEnvironment } from "../test/support/environment.js";
import { runTs } from "../test/support/processes.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
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
try {
  const base = system.baseUrl;
  const bareOrigin = `http://127.0.0.1:${(await bare.waitForOutput(/listening (\d+)/))[1]}`;
  const json = { "content-type": "application/json" };
  const jwt = ((await (await fetch(`${base}/v1/auth/login`, { method: "POST", headers: json, body: JSON.stringify(admin) })).json()) as { accessToken: string }).accessToken;
  const customer = await fetch(`${base}/v1/customers`, { method: "POST", headers: { ...json, authorization: `Bearer ${token}` }, body: JSON.stringify({ name: "Bench Customer" }) });
  if (customer.status !== 201) throw new Error(`could not create the bench customer: ${customer.status} ${await customer.text()}`);
  const customerId = ((await customer.json()) as { id: string }).id;
  // Orders name an existing product of the tenant (the bare baseline stores the same id).
  const product = await fetch(`${base}/v1/products`, { method: "POST", headers: { ...json, authorization: `Bearer ${token}` }, body: JSON.stringify({ sku: `BENCH-${run}`, name: "Bench product" }) });
  if (product.status !== 201) throw new Error(`could not create the bench product: ${product.status} ${await product.text()}`);
  const productId = ((await product.json()) as { id: string }).id;

  // shortId is unique per tenant, so every request of every run gets the next number.
  let sequence = 0;
  const order = () =>
    JSON.stringify({ shortId: `B-${run}-${sequence++}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 2, price: "19.99" }] });
  const waybill = (credential: string) => () => ({ method: "POST" as const, path: "/v1/orders", headers: { ...json, authorization: `Bearer ${credential}` }, body: order() });
  const bareRequest = () => ({ method: "POST" as const, path: "/orders", headers: json, body: order() });
  const options = { concurrency, durationMs: seconds * 1000, expectStatus: 201 };

  process.stdout.write(`orders-create: ${concurrency} concurrent clients, ${seconds} s per run, loopback, ${process.env.BENCH_TOPOLOGY ?? "split"} topology\n`);
  // Warm-up of every path measured (JIT, connection pools, PostgreSQL's caches), so that the
  // first measured run is not the one that pays for it.
  await runLoad(base, waybill(token), { ...options, durationMs: 3_000 });
  await runLoad(base, waybill(jwt), { ...options, durationMs: 3_000 });
  await runLoad(bareOrigin, bareRequest, { ...options, durationMs: 3_000 });
  // CPU of every process involved, per request: the services, the bare server, the load
  // generator (this process), PostgreSQL and nats-server.
  const roots = { ...system.pids, "bare server": bare.process.pid!, "load generator": process.pid };
  const measured = async (run: () => Promise<LoadResult>) => {
    const before = snapshotCpu(roots);
    const result = await run();
    return { result, cpu: formatCpuPerRequest(before, snapshotCpu(roots), result.requests) };
  };
  const withToken = await measured(() => runLoad(base, waybill(token), options));
  const withJwt = await measured(() => runLoad(base, waybill(jwt), options));
  const baseline = await measured(() => runLoad(bareOrigin, bareRequest, options));
  process.stdout.write(`${formatResult("waybill POST /v1/orders, api token", withToken.result)}\n${withToken.cpu}\n`);
  process.stdout.write(`${formatResult("waybill POST /v1/orders, session JWT", withJwt.result)}\n${withJwt.cpu}\n`);
  process.stdout.write(`${formatResult("bare koa + pg insert", baseline.result)}\n${baseline.cpu}\n`);
  process.stdout.write(`ratio api token / bare: ${(withToken.result.perSecond / baseline.result.perSecond).toFixed(2)} (target >= 0.50)\n`);
  process.stdout.write(`ratio JWT / api token:  ${(withJwt.result.perSecond / withToken.result.perSecond).toFixed(2)} (auth adds no gRPC round trip either way)\n`);
} finally {
  bare.process.kill("SIGTERM");
  await Promise.allSettled([system.stop(), bare.exited(10_000)]);
  await env.cleanup();
}
