import { randomBytes } from "node:crypto";
import pg from "pg";
import { formatCpuPerRequest, snapshotCpu } from "../cpu-accounting.js";
import { formatResult, runLoad } from "../load.js";
import { seedOrders } from "../scale-seed.js";
import { startSystem } from "../system.js";
import { createTestEnvironment } from "../../test/support/environment.js";
const token = `api-bench-${randomBytes(24).toString("base64url")}`;
const env = await createTestEnvironment();
const system = await startSystem({ ...env.env, BOOTSTRAP_API_TOKEN: token, RATE_LIMIT_REQUESTS: "100000000" });
const db = new pg.Client({ connectionString: env.databaseUrl });
await db.connect();
const json = { "content-type": "application/json", authorization: `Bearer ${token}` };
try {
  const tenantId = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
  const customerId = ((await (await fetch(`${system.baseUrl}/v1/customers`, { method: "POST", headers: json, body: JSON.stringify({ name: "c" }) })).json()) as { id: string }).id;
  await seedOrders(db, tenantId, customerId, "prd_x", 200_000);
  const path = process.env.LIST_PATH ?? "/v1/orders?status=cancelled&limit=100";
  const get = () => ({ method: "GET" as const, path, headers: json });
  const reads = { concurrency: Number(process.env.C ?? 8), durationMs: 10_000, expectStatus: 200 };
  await runLoad(system.baseUrl, get, { ...reads, durationMs: 3000 });
  const roots = { ...system.pids, "load generator": process.pid };
  const before = snapshotCpu(roots);
  const r = await runLoad(system.baseUrl, get, reads);
  console.log(formatResult(path, r));
  console.log(formatCpuPerRequest(before, snapshotCpu(roots), r.requests));
} finally {
  await db.end();
  await system.stop();
  await env.cleanup();
}
