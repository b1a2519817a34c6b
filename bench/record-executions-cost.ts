// What recording delivery attempts costs PostgreSQL, part by part: the dispatcher's statement
// (executions.ts: execution rows and the hooks' counters in one statement) against the same rows
// inserted without the counters, with the foreign key to hooks they had until migration 012, and
// without the two indexes only some reads use; and failed attempts with a retry due, alone and as
// the deliverer records them (in a transaction that also checks for their entities' queues); and
// the statement as it was before 2026-11-28's evening, grouping each hook's totals itself.
// Measured as the backend's own CPU (/proc/<pid>/stat of the connection's PostgreSQL process, so
// PostgreSQL must run on this machine) per row, in batches of BATCH rows.
// Run: node --conditions=@waybill/source --import tsx bench/record-executions-cost.ts
//   (BATCH=8, BATCHES=1500 per variant, PAIRS=3 pairs of the statement now and before; DATABASE_URL as for the tests; a database of its own, dropped at the end)
import pg from "pg";
import { createPool, type PoolClient } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import { migrate } from "@waybill/platform/migrations.js";
import { executionRows, RECORD_EXECUTIONS_SQL, recordExecutions, type NewExecution } from "../services/dispatcher/executions.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { orderRecordedRetries } from "../services/dispatcher/ordered-redelivery.js";
import { createTestEnvironment } from "../test/support/environment.js";
import { newAttempt } from "../test/support/attempts.js";
import { processCpuMs } from "./cpu-accounting.js";

const BATCH = Number(process.env.BATCH ?? 8);
const BATCHES = Number(process.env.BATCHES ?? 1500);
const HOOKS = 4;
const tenantId = "ten_bench";

const env = await createTestEnvironment();
const pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 1, applicationName: "waybill-bench-record" });
await migrate(pool, DISPATCHER_SCHEMA, [DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
await pool.end();

const db = new pg.Client({ connectionString: env.databaseUrl, options: `-c search_path=${DISPATCHER_SCHEMA}` });
await db.connect();
const hooks = Array.from({ length: HOOKS }, () => newId("hook"));
for (const id of hooks)
  await db.query(
    `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since)
     VALUES ($1, $2, 'bench', 'http://127.0.0.1/', 'order.created', 'active', 'none', 'sealed', now(), now())`,
    [id, tenantId],
  );
const backend = (await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0].pid;
const backendCpuMs = () => processCpuMs(backend);

const attempts = (): NewExecution[] => {
  const eventId = newId("evt");
  return Array.from({ length: BATCH }, (_, i) =>
    newAttempt({ tenantId, hookId: hooks[i % HOOKS], eventId, deliveryId: `${eventId}:${hooks[i % HOOKS]}:${i}` }),
  );
};

// The same rows without the hooks' counters.
const INSERT_ONLY = `INSERT INTO executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, requested_at, url,
                        duration_ms, outcome, status_code, response_body, response_headers, error, next_attempt_at)
  SELECT id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, requested_at, url, duration_ms, 'succeeded',
         status_code, response_body, response_headers, error, next_attempt_at
    FROM jsonb_to_recordset($1::jsonb) AS r(id text, tenant_id text, hook_id text, delivery_id text, event_id text, event_kind text,
         trigger text, attempt int, requested_at timestamptz, url text, duration_ms int, status_code int, response_body text,
         response_headers jsonb, error text, next_attempt_at timestamptz)`;
/** The rows of a batch as the statements' jsonb parameter (extra fields are ignored by the variants). */
const rowsOf = (batch: NewExecution[]) => JSON.stringify(executionRows(batch));
const insertOnly = (batch: NewExecution[]) => db.query({ name: "bench_insert_only", text: INSERT_ONLY, values: [rowsOf(batch)] });

// The dispatcher's statement as it was until 2026-11-28 (evening): each hook's totals grouped
// from the rows by the statement itself, not sent summed as a second parameter.
// Made from the statement of now, so that the two differ only there: the rows (the columns the
// insert reads) become an `input` CTE the totals are grouped from.
const INPUT_COLUMNS = RECORD_EXECUTIONS_SQL.match(/json_to_recordset\(\$1::json\) AS i\(([^)]*)\)/)![1];
const GROUPED_TOTALS = RECORD_EXECUTIONS_SQL.replace(
  /^WITH totals AS \([^)]*\)[^)]*\)[^)]*\)/,
  `WITH input AS (SELECT * FROM json_to_recordset($1::json) AS r(${INPUT_COLUMNS})),
   totals AS (
     SELECT tenant_id, hook_id, sum(ok) AS ok, sum(1 - ok) AS failed, max(requested_at) AS last_run_at,
            min(requested_at) FILTER (WHERE ok = 0) AS first_failed_at
       FROM input GROUP BY tenant_id, hook_id
   )`,
).replace(
  /FROM json_to_recordset\(\$1::json\) AS i\([^)]*\)\s*WHERE i\.hook_id IN \(SELECT id FROM counted\)/,
  "FROM input i JOIN counted c ON c.id = i.hook_id",
);
if (GROUPED_TOTALS.includes("$2") || !GROUPED_TOTALS.includes("GROUP BY")) throw new Error("the grouped variant no longer matches executions.ts's statement");
const groupedTotals = (batch: NewExecution[]) => db.query({ name: "bench_record_grouped", text: GROUPED_TOTALS, values: [rowsOf(batch)] });

// The counters kept in a narrow table of their own (hook_counters), as the hooks' row keeps them
// now: a smaller row to write again at each batch, and fewer indexes on it.
await db.query(`CREATE TABLE hook_counters (hook_id text PRIMARY KEY, success_count bigint NOT NULL DEFAULT 0,
  error_count bigint NOT NULL DEFAULT 0, last_run_at timestamptz, failing_since timestamptz) WITH (fillfactor = 50)`);
await db.query("INSERT INTO hook_counters (hook_id) SELECT id FROM hooks");
const COUNTED_APART = `WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id text, tenant_id text, hook_id text, delivery_id text, event_id text, event_kind text,
      trigger text, attempt int, requested_at timestamptz, url text, duration_ms int, status_code int, response_body text,
      response_headers jsonb, error text, next_attempt_at timestamptz)
  ), totals AS (
    SELECT hook_id, count(*) AS ok, max(requested_at) AS last_run_at FROM input GROUP BY hook_id
  ), locked AS (
    SELECT c.hook_id FROM hook_counters c JOIN totals t ON t.hook_id = c.hook_id ORDER BY c.hook_id FOR NO KEY UPDATE OF c
  ), counted AS (
    UPDATE hook_counters c SET success_count = c.success_count + t.ok, last_run_at = GREATEST(c.last_run_at, t.last_run_at), failing_since = NULL
      FROM totals t, locked l WHERE l.hook_id = c.hook_id AND t.hook_id = c.hook_id RETURNING c.hook_id
  )
  INSERT INTO executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, requested_at, url,
                          duration_ms, outcome, status_code, response_body, response_headers, error, next_attempt_at)
  SELECT i.id, i.tenant_id, i.hook_id, i.delivery_id, i.event_id, i.event_kind, i.trigger, i.attempt, i.requested_at, i.url, i.duration_ms,
         'succeeded', i.status_code, i.response_body, i.response_headers, i.error, i.next_attempt_at
    FROM input i JOIN counted c ON c.hook_id = i.hook_id`;
const countedApart = (batch: NewExecution[]) => db.query({ name: "bench_counted_apart", text: COUNTED_APART, values: [rowsOf(batch)] });

// Failed attempts with a retry due: the deliverer records them in a transaction that also checks
// whether ordering was turned on for their hooks meanwhile (delivery.ts recordAttempts); here no
// hook is perEntity, the common case, so the check finds nothing to move.
const failedAttempts = () =>
  attempts().map((a) => ({ ...a, result: { ...a.result, ok: false, statusCode: 503 }, nextAttemptAt: new Date(Date.now() + 60_000) }));
const recordedWithQueueCheck = async (batch: NewExecution[]) => {
  await db.query("BEGIN");
  await recordExecutions(db, batch);
  await orderRecordedRetries(
    db as unknown as PoolClient,
    batch.map((a) => a.deliveryId),
  );
  await db.query("COMMIT");
};

async function measure(label: string, write: (batch: NewExecution[]) => Promise<unknown>, make = attempts): Promise<void> {
  const cpuBefore = backendCpuMs();
  const started = performance.now();
  for (let b = 0; b < BATCHES; b++) await write(make());
  const rows = BATCHES * BATCH;
  const wallUs = ((performance.now() - started) / rows) * 1000;
  const cpuUs = ((backendCpuMs() - cpuBefore) / rows) * 1000;
  process.stdout.write(`${label.padEnd(58)} ${cpuUs.toFixed(1).padStart(6)} µs PostgreSQL CPU per row  (${wallUs.toFixed(1)} µs wall)\n`);
}

process.stdout.write(`record-executions-cost: ${BATCHES} batches of ${BATCH} rows per variant, ${HOOKS} hooks\n`);
try {
  const recorded = (batch: NewExecution[]) => recordExecutions(db, batch);
  await measure("warm-up (the dispatcher's statement)", recorded);
  // In pairs: on a busy machine the same variant moves ±10 µs between two measures.
  for (let pair = 0; pair < Number(process.env.PAIRS ?? 3); pair++) {
    await measure("the dispatcher's statement (rows + hook counters)", recorded);
    await measure("  … its hooks' totals grouped by the statement (before)", groupedTotals);
  }
  await measure("the same rows without the counters", insertOnly);
  await measure("the rows, counters in a narrow table of their own", countedApart);
  await measure("failed attempts with a retry due (the dispatcher's statement)", recorded, failedAttempts);
  await measure("  … as recorded: a transaction that also looks for their queues", recordedWithQueueCheck, failedAttempts);
  await db.query("ALTER TABLE executions ADD CONSTRAINT executions_hook_id_fkey FOREIGN KEY (hook_id) REFERENCES hooks (id) ON DELETE CASCADE");
  await measure("the same rows with the old foreign key to hooks", insertOnly);
  await db.query("ALTER TABLE executions DROP CONSTRAINT executions_hook_id_fkey");
  // Dropped by migration 013 (its lookups use executions_event): what it cost while it was there.
  await db.query("CREATE INDEX executions_hook_event_succeeded ON executions (hook_id, event_id) WHERE outcome = 'succeeded'");
  await measure("the same rows with executions_hook_event_succeeded (before 013)", insertOnly);
  await db.query("DROP INDEX executions_hook_event_succeeded");
  await db.query("DROP INDEX executions_event");
  await measure("the same rows without executions_event", insertOnly);
} finally {
  await db.end();
  await env.cleanup();
}
