// Recording delivery attempts on a real PostgreSQL (executions.ts's recordExecutions): one
// statement writes each attempt's execution and counts it on its hook; an attempt whose hook was
// deleted while it ran is not recorded and answers null, and the others of its batch still are;
// what is written is what a tricky answer (quotes, backslashes, emoji, odd headers) carried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { migrate } from "@waybill/platform/migrations.js";
import { newId } from "@waybill/platform/ids.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { recordExecutions, type NewExecution } from "../services/dispatcher/executions.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { newAttempt } from "./support/attempts.js";

let env: TestEnvironment;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 2, applicationName: "executions-record-test" });
  await migrate(pool, DISPATCHER_SCHEMA, [DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
  for (const id of ["hook_kept", "hook_deleted"])
    await pool.query(
      `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since)
       VALUES ($1, 'ten_a', $1, 'http://127.0.0.1/', 'order.created', 'active', 'none', 'sealed', now(), now())`,
      [id],
    );
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

function attempt(hookId: string, ok: boolean, answer: { body?: string; headers?: Record<string, string> } = {}): NewExecution {
  return newAttempt({
    tenantId: "ten_a",
    hookId,
    eventId: newId("evt"),
    ok,
    requestedAt: new Date("2026-11-28T12:00:00.123Z"),
    responseBody: answer.body,
    responseHeaders: answer.headers,
    nextAttemptAt: ok ? null : new Date("2026-11-28T12:01:00.000Z"),
  });
}

describe("recording attempts", () => {
  it("records each attempt and counts it on its hook; one whose hook was deleted answers null and is not written", async () => {
    await pool.query("DELETE FROM hooks WHERE id = 'hook_deleted'");
    const batch = [attempt("hook_kept", true), attempt("hook_deleted", true), attempt("hook_kept", false)];
    const recorded = await recordExecutions(pool, batch);

    expect(recorded.map((r) => r?.outcome ?? null)).toEqual(["succeeded", null, "failed"]);
    expect(recorded[2]).toMatchObject({ hookId: "hook_kept", statusCode: 503, nextAttemptAt: "2026-11-28T12:01:00.000Z" });
    const { rows } = await pool.query<{ id: string; hook_id: string; outcome: string }>("SELECT id, hook_id, outcome FROM executions ORDER BY id");
    expect(rows.map((r) => [r.id, r.hook_id, r.outcome])).toEqual([
      [recorded[0]!.id, "hook_kept", "succeeded"],
      [recorded[2]!.id, "hook_kept", "failed"],
    ]);
    const hook = await pool.query("SELECT success_count, error_count, last_run_at, failing_since FROM hooks WHERE id = 'hook_kept'");
    expect(hook.rows[0]).toMatchObject({ success_count: "1", error_count: "1", failing_since: null });
    expect((hook.rows[0].last_run_at as Date).toISOString()).toBe("2026-11-28T12:00:00.123Z");
  });

  it("counts a batch of failures from its first failure, and its last attempt as the hook's last run", async () => {
    await pool.query(
      "INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since) VALUES ('hook_failing', 'ten_a', 'f', 'http://127.0.0.1/', 'order.created', 'active', 'none', 'sealed', now(), now())",
    );
    const at = (iso: string) =>
      newAttempt({
        tenantId: "ten_a",
        hookId: "hook_failing",
        eventId: newId("evt"),
        ok: false,
        requestedAt: new Date(iso),
        nextAttemptAt: new Date(Date.parse(iso) + 60_000),
      });
    // Not in time order within the batch: the attempts' records come in as their answers do.
    await recordExecutions(pool, [at("2026-11-28T12:00:02.000Z"), at("2026-11-28T12:00:01.500Z"), at("2026-11-28T12:00:03.250Z")]);
    const hook = await pool.query("SELECT success_count, error_count, last_run_at, failing_since FROM hooks WHERE id = 'hook_failing'");
    expect(hook.rows[0]).toMatchObject({ success_count: "0", error_count: "3" });
    expect((hook.rows[0].last_run_at as Date).toISOString()).toBe("2026-11-28T12:00:03.250Z");
    expect((hook.rows[0].failing_since as Date).toISOString()).toBe("2026-11-28T12:00:01.500Z");

    // A later batch with one success among failures ends the streak; the counts add up.
    await recordExecutions(pool, [at("2026-11-28T12:00:04.000Z"), attempt("hook_failing", true)]);
    const after = await pool.query("SELECT success_count, error_count, failing_since FROM hooks WHERE id = 'hook_failing'");
    expect(after.rows[0]).toEqual({ success_count: "1", error_count: "4", failing_since: null });
  });

  it("writes a tricky answer exactly as it came", async () => {
    const body = 'ok "quoted" \\ back\\slash \u{1F680} }, {"id": "x"} $waybill$';
    const headers = { "content-type": "text/plain; charset=utf-8", "x-odd": 'a "b" \\ c', "x-emoji": "\u{1F680}" };
    const [recorded] = await recordExecutions(pool, [attempt("hook_kept", true, { body, headers })]);
    const { rows } = await pool.query<{ response_body: string; response_headers: Record<string, string> }>(
      "SELECT response_body, response_headers FROM executions WHERE id = $1",
      [recorded!.id],
    );
    expect(rows).toEqual([{ response_body: body, response_headers: headers }]);
  });
});
