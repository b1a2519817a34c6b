// What taking events into the event log costs PostgreSQL per event, and per statement: the
// dispatcher's intake (fan-out.ts `recordEvents`: BEGIN, the subscribed hooks' signing locks, the
// event log insert with the hooks' read, COMMIT) in batches of BATCH events, then again without
// the event log's lookup indexes, one group at a time. Measured as the connection's backend CPU
// (/proc/<pid>/stat, so PostgreSQL must run on this machine). Two batch sizes give the fixed cost
// of a statement and the cost of an event: cost per event = fixed / batch + per event.
// Run: npm run bench:intake-cost   (BATCH=10, BATCHES=1000; a database of its own, dropped at the end)
import { createPool } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import { migrate } from "@waybill/platform/migrations.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { recordEvents, type DeliverySigner, type IncomingEvent } from "../services/dispatcher/fan-out.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { createTestEnvironment } from "../test/support/environment.js";
import { processCpuMs } from "./cpu-accounting.js";

const BATCH = Number(process.env.BATCH ?? 10);
const BATCHES = Number(process.env.BATCHES ?? 1000);
const HOOKS = 4;
const tenantId = "ten_bench";

const env = await createTestEnvironment();
// One connection, so that one backend does all the work measured.
const pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 1, applicationName: "waybill-bench-intake" });
try {
  await migrate(pool, DISPATCHER_SCHEMA, [DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
  for (let i = 0; i < HOOKS; i++)
    await pool.query(
      `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since)
       VALUES ($1, $2, 'bench', 'http://127.0.0.1/', 'order.created', 'active', 'none', 'sealed', now(), now() - interval '1 hour')`,
      [newId("hook"), tenantId],
    );
  const backend = (await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
  const backendCpuMs = () => processCpuMs(backend);
  // Signs nothing, as the intake does for hooks it did not lock; the locks and reads still run.
  const signer: DeliverySigner = { mark: () => 1, sign: () => {} };
  let streamSeq = 0;
  const batch = (): IncomingEvent[] =>
    Array.from({ length: BATCH }, () => {
      const event = {
        id: newId("evt"),
        kind: "order.created",
        time: new Date().toISOString(),
        transactionId: newId("txn"),
        orderId: newId("ord"),
        shortId: `B-${streamSeq}`,
        customerId: "cus_bench",
        currency: "EUR",
        total: "39.98",
        status: "new",
      } as unknown as EventEnvelope;
      return { tenantId, event, eventJson: JSON.stringify(event), streamSeq: ++streamSeq };
    });
  const measure = async (label: string) => {
    const cpuBefore = backendCpuMs();
    const started = performance.now();
    for (let b = 0; b < BATCHES; b++) await (await recordEvents(pool, batch(), signer)).committed;
    const events = BATCHES * BATCH;
    const cpuUs = ((backendCpuMs() - cpuBefore) / events) * 1000;
    const wallUs = ((performance.now() - started) / events) * 1000;
    process.stdout.write(`${label.padEnd(58)} ${cpuUs.toFixed(1).padStart(6)} µs PostgreSQL CPU per event  (${wallUs.toFixed(1)} µs wall)\n`);
  };
  process.stdout.write(`intake-statement-cost: ${BATCHES} batches of ${BATCH} events per variant, ${HOOKS} hooks subscribed\n`);
  await measure("warm-up (the intake's statement)");
  await measure("the intake's statement");
  for (const index of ["event_log_device", "event_log_hook", "event_log_product", "event_log_customer", "event_log_shipment"])
    await pool.query(`DROP INDEX ${index}`);
  await measure("  … without the five lookups an order event does not match");
  await pool.query("DROP INDEX event_log_order");
  await measure("  … and without event_log_order");
  await pool.query("DROP INDEX event_log_transaction");
  await measure("  … and without event_log_transaction");
  await pool.query("DROP INDEX event_log_tenant_kind");
  await measure("  … and without event_log_tenant_kind");
} finally {
  await pool.end();
  await env.cleanup();
}
