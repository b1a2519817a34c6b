// Retention deletes only what is older than its period, in batches, from each history table.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneHistory } from "../services/dispatcher/retention.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { client } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS } from "./webhooks-fixtures.js";

const DAY = 86_400_000;

describe("retention of the dispatcher's history", () => {
  let stack: Stack;
  let pool: Pool;
  let db: pg.Client;

  beforeAll(async () => {
    stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
    pool = createPool({ databaseUrl: stack.env.databaseUrl, schema: "dispatcher", applicationName: "retention-test" });
    db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await pool?.end();
    await stack?.stop();
  });

  it("deletes events, executions, test events and parked deliveries older than their periods and keeps the rest", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const ago = (days: number) => new Date(now.getTime() - days * DAY);
    const hook = await createHook(client(stack), { url: "http://127.0.0.1:9/hooks", on: "order.created" });
    const tenant = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
    const ages = [1, 8, 29, 31, 45, 89, 91, 120];
    for (const [i, days] of ages.entries()) {
      const eventId = `evt_00000000000000000000000${i}0`;
      await db.query(
        "INSERT INTO dispatcher.event_log (id, tenant_id, kind, time, transaction_id, event) VALUES ($1, $2, 'order.created', $3, 'txn_x', '{}')",
        [eventId, tenant, ago(days)],
      );
      await db.query(
        `INSERT INTO dispatcher.executions (id, tenant_id, hook_id, delivery_id, event_id, event_kind, trigger, attempt, url, requested_at, duration_ms, outcome)
         VALUES ($1, $2, $3, $4, $5, 'order.created', 'event', 1, 'http://x', $6, 5, 'succeeded')`,
        [`exe_00000000000000000000000${i}0`, tenant, hook.id, `${eventId}:${hook.id}`, eventId, ago(days)],
      );
      await db.query("INSERT INTO dispatcher.test_events (id, tenant_id, hook_id, event, created_at) VALUES ($1, $2, $3, '{}', $4)", [
        `evt_10000000000000000000000${i}0`,
        tenant,
        hook.id,
        ago(days),
      ]);
      await db.query("INSERT INTO dispatcher.parked_deliveries (delivery_id, tenant_id, hook_id, message, parked_at) VALUES ($1, $2, $3, '{}', $4)", [
        `${eventId}:${hook.id}`,
        tenant,
        hook.id,
        ago(days),
      ]);
    }
    const deleted = await pruneHistory(pool, { eventsMs: 30 * DAY, executionsMs: 90 * DAY, testEventsMs: 7 * DAY }, { batch: 2, pauseMs: 0, now });
    expect(deleted).toEqual({ event_log: 5, executions: 2, test_events: 7, parked_deliveries: 5 });
    const left = async (table: string, column: string) =>
      (
        await db.query<{ days: number }>(
          `SELECT round(extract(epoch FROM ($1::timestamptz - ${column})) / 86400)::int AS days FROM dispatcher.${table} WHERE tenant_id = $2 ORDER BY 1`,
          [now, tenant],
        )
      ).rows.map((r) => r.days);
    expect(await left("event_log", "time")).toEqual([1, 8, 29]);
    expect(await left("executions", "requested_at")).toEqual([1, 8, 29, 31, 45, 89]);
    expect(await left("test_events", "created_at")).toEqual([1]);
    expect(await left("parked_deliveries", "parked_at")).toEqual([1, 8, 29]);
  });
});
