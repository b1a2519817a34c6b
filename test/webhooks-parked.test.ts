// Parked deliveries: a receiver that stays down gets its deliveries parked in PostgreSQL instead of
// cycling through JetStream, and once it answers again every one of them arrives, each event once.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISPATCHER_SCHEMA } from "../services/dispatcher/service.js";
import { client, createCustomer, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { metric } from "./support/metrics.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const EVENTS = 20;

describe("a hook whose receiver stays down", () => {
  let stack: Stack;
  let call: Call;
  let receiver: TestReceiver;
  let db: pg.Client;
  let down = true;
  /** Event ids the receiver answered 200 to, in order. */
  const accepted: string[] = [];

  beforeAll(async () => {
    // Parked once a delivery would wait a second for the breaker (5 minutes by default). Retries
    // 5 s apart: the breaker's trial 5 s after it opened may be the second attempt of one of the
    // first failures, and when parking took the test longer than that (a busy machine), the
    // receiver was still down for it; by the default schedule its next attempt came 5 minutes
    // later, after this test's minute (1 CI run in ~15; always with the receiver down 6 s longer).
    stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_PARK_AFTER: "1s", WEBHOOK_RETRY_SCHEDULE: "5s,5s,5s,5s,5s,5s,5s" } });
    call = client(stack);
    receiver = await startReceiver((_index, request) => {
      if (down) return { status: 503, body: "down" };
      accepted.push(request.json?.id);
      return { status: 200 };
    });
    db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await receiver?.close();
    await stack?.stop();
  });

  const parkedCount = async (hookId: string) =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${DISPATCHER_SCHEMA}.parked_deliveries WHERE hook_id = $1`, [hookId])).rows[0].n;

  it("parks its deliveries while it is down, and delivers every event once after it answers again", async () => {
    const hook = await createHook(call, { url: receiver.url, on: "customer.created" });
    const customers = new Set<string>();
    for (let i = 0; i < EVENTS; i++) customers.add(await createCustomer(call));

    // The first attempts fail and open the breaker; what waits for it is parked, not kept cycling.
    await eventually(async () => ((await parkedCount(hook.id)) >= EVENTS - 8 ? true : undefined), 30_000);
    expect(await metric(stack.dispatcher.opsPort, /^waybill_webhook_deferred_total\{reason="parked"/)).toBeGreaterThanOrEqual(EVENTS - 8);
    const failedRequests = receiver.received.length;
    expect(failedRequests).toBeLessThan(EVENTS); // held back, not attempted one by one

    down = false;
    const upAt = new Date();
    const ourEvents = async () =>
      ((await call(`/events?kind=customer.created&limit=100`)).body.data as { id: string; customerId: string }[])
        .filter((e) => customers.has(e.customerId))
        .map((e) => e.id);
    // A probe goes out when the breaker lets one through; once it succeeds the rest follow. When
    // some never arrive, say what became of them: their attempts and whether they are parked.
    await eventually(async () => (new Set(accepted).size >= EVENTS ? true : undefined), 60_000).catch(async (error: Error) => {
      const missing = (await ourEvents()).filter((id) => !accepted.includes(id));
      const { rows } = await db.query(
        `SELECT e.event_id, e.attempt, e.outcome, e.status_code, e.requested_at, e.next_attempt_at,
                EXISTS (SELECT 1 FROM ${DISPATCHER_SCHEMA}.parked_deliveries p WHERE p.delivery_id = e.delivery_id) AS parked
           FROM ${DISPATCHER_SCHEMA}.executions e WHERE e.event_id = ANY($1) ORDER BY e.event_id, e.attempt`,
        [missing],
      );
      throw new Error(
        `${error.message}; receiver up since ${upAt.toISOString()}; not accepted: ${JSON.stringify(missing)}; their attempts: ${JSON.stringify(rows)}; still parked: ${await parkedCount(hook.id)}`,
      );
    });
    const ours = await ourEvents();
    expect(ours).toHaveLength(EVENTS);
    expect([...accepted].sort()).toEqual([...ours].sort()); // each event accepted once, none twice
    expect(await parkedCount(hook.id)).toBe(0);
    expect(await metric(stack.dispatcher.opsPort, /^waybill_webhook_parked_released_total\b/)).toBeGreaterThanOrEqual(EVENTS - 8);
  }, 120_000); // both waits and the report of a failure

  it("sends a manual retry now, past the open breaker, and its success brings the parked deliveries back", async () => {
    let up = false;
    const answered: { id: string; status: number }[] = [];
    const failing = await startReceiver((_index, request) => {
      const status = up ? 200 : 503;
      answered.push({ id: request.json?.id, status });
      return { status };
    });
    try {
      const hook = await createHook(call, { url: failing.url, on: "customer.created" });
      // Five failures one after another open the breaker for 5 s; the trial after them fails too,
      // which opens it for 10 s: a retry held back by it would wait that long.
      for (let i = 0; i < 5; i++) {
        await createCustomer(call);
        await failing.waitFor(i + 1);
      }
      await failing.waitFor(6);
      const [failed] = (await call(`/hooks/${hook.id}/executions?limit=100`)).body.data as { id: string; eventId: string }[];
      up = true;
      const askedAt = Date.now();
      expect((await call(`/hooks/${hook.id}/executions/${failed.id}/retry`, { method: "POST" })).status).toBe(202);
      const manual = await eventually(async () => {
        const list = (await call(`/hooks/${hook.id}/executions?limit=100`)).body.data as { trigger: string; outcome: string; requestedAt: string }[];
        return list.find((e) => e.trigger === "manual");
      }, 30_000);
      expect(manual.outcome).toBe("succeeded");
      expect(Date.parse(manual.requestedAt) - askedAt).toBeLessThan(5_000);
      expect(answered.find((a) => a.status === 200)?.id).toBe(failed.eventId);
      // The success closed the breaker: every event reaches the receiver, the parked ones too.
      await eventually(async () => (new Set(answered.filter((a) => a.status === 200).map((a) => a.id)).size >= 5 ? true : undefined), 60_000);
      await eventually(async () => ((await parkedCount(hook.id)) === 0 ? true : undefined), 10_000);
    } finally {
      await failing.close();
    }
  }, 120_000);
});
