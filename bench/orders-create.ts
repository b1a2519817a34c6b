// Benchmark: orders created per second over HTTP through the whole system (edge → identity cache
// → orders over gRPC → PostgreSQL + outbox → JetStream), next to a bare Koa + pg single-row insert
// server measured in the same run. Run: npm run bench:orders  (BENCH_SECONDS, BENCH_CONCURRENCY)
import { randomBytes } from "node:crypto";
import { formatResult, runLoad } from "./load.js";
import { createTestEnvironment } from "../test/support/environment.js";
import { runTs } from "../test/support/processes.js";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const run = randomBytes(3).toString("hex");
const token = `api-bench-${randomBytes(24).toString("base64url")}`;

const env = await createTestEnvironment();
const system = runTs("services/launcher/main.ts", { ...env.env, HTTP_PORT: "0", MQTT_PORT: "0", LOG_LEVEL: "warn", BOOTSTRAP_API_TOKEN: token });
const bare = runTs("bench/bare-orders-server.ts", { DATABASE_URL: env.databaseUrl });
try {
  const base = (await system.waitForOutput(/HTTP API: +(http:\/\/\S+)\/v1/, 60_000))[1];
  const bareOrigin = `http://127.0.0.1:${(await bare.waitForOutput(/listening (\d+)/))[1]}`;
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  // Orders reference a customer when the customers API exists.
  let customerId = "cus_bench";
  const customer = await fetch(`${base}/v1/customers`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Bench Customer" }) });
  if (customer.status === 201) customerId = ((await customer.json()) as { id: string }).id;

  // shortId is unique per tenant, so every request of every run gets the next number.
  let sequence = 0;
  const order = () =>
    JSON.stringify({
      shortId: `B-${run}-${sequence++}`,
      customerId,
      currency: "EUR",
      orderItems: [{ productId: "prd_bench", quantity: 2, price: "19.99" }],
    });
  const waybillRequest = () => ({ method: "POST" as const, path: "/v1/orders", headers: auth, body: order() });
  const bareRequest = () => ({ method: "POST" as const, path: "/orders", headers: { "content-type": "application/json" }, body: order() });

  process.stdout.write(`orders-create benchmark: ${concurrency} concurrent clients, ${seconds} s per run, loopback\n`);
  await runLoad(base, waybillRequest, { concurrency, durationMs: 2_000, expectStatus: 201 });
  await runLoad(bareOrigin, bareRequest, { concurrency, durationMs: 2_000, expectStatus: 201 });
  const waybill = await runLoad(base, waybillRequest, { concurrency, durationMs: seconds * 1000, expectStatus: 201 });
  const baseline = await runLoad(bareOrigin, bareRequest, { concurrency, durationMs: seconds * 1000, expectStatus: 201 });
  process.stdout.write(`${formatResult("waybill POST /v1/orders (api token)", waybill)}\n`);
  process.stdout.write(`${formatResult("bare koa + pg insert", baseline)}\n`);
  process.stdout.write(`ratio waybill/bare: ${(waybill.perSecond / baseline.perSecond).toFixed(2)} (target >= 0.50)\n`);
} finally {
  system.process.kill("SIGINT");
  bare.process.kill("SIGTERM");
  await Promise.allSettled([system.exited(30_000), bare.exited(10_000)]);
  await env.cleanup();
}
