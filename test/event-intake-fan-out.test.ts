// What the event intake fans an event out to, on a real PostgreSQL (fan-out.ts's recordEvents):
// the active hooks of its tenant subscribed to its kind and active since before it occurred, each
// once; a new event's unordered deliveries are signed at intake, an ordered one is not; an event
// that comes again (later, or twice in one batch) is not logged twice; its text is logged as it came;
// the events a consumer hands over one by one within a turn share one statement (event-intake.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { migrate } from "@waybill/platform/migrations.js";
import { newId } from "@waybill/platform/ids.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { recordEvents, type DeliveryToSign, type IncomingEvent } from "../services/dispatcher/fan-out.js";
import { createEventIntake, type Intake } from "../services/dispatcher/event-intake.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

let env: TestEnvironment;
let pool: Pool;

const HOUR_AGO = "now() - interval '1 hour'";
beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 2, applicationName: "event-intake-test" });
  await migrate(pool, DISPATCHER_SCHEMA, [DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
  const hook = (id: string, tenant: string, kind: string, status: string, ordering: string, since: string) =>
    `('${id}', '${tenant}', '${id}', 'http://127.0.0.1/${id}', '${kind}', '${status}', '${ordering}', 'sealed-${id}', now(), ${since})`;
  await pool.query(
    `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since) VALUES
       ${hook("hook_a", "ten_a", "order.created", "active", "none", HOUR_AGO)},
       ${hook("hook_b", "ten_a", "order.created", "active", "perEntity", HOUR_AGO)},
       ${hook("hook_c", "ten_a", "order.created", "active", "none", "now() + interval '1 hour'")},
       ${hook("hook_d", "ten_a", "order.created", "paused", "none", HOUR_AGO)},
       ${hook("hook_e", "ten_a", "order.updated", "active", "none", HOUR_AGO)},
       ${hook("hook_f", "ten_b", "order.created", "active", "none", HOUR_AGO)}`,
  );
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

let seq = 0;
function incoming(tenantId: string, kind: string, time = new Date().toISOString()): IncomingEvent {
  const event = { id: newId("evt"), kind, time, transactionId: newId("txn"), orderId: newId("ord") } as unknown as EventEnvelope;
  return { tenantId, event, eventJson: JSON.stringify(event), streamSeq: ++seq };
}

/** Records `events` in one batch, with a signer that notes what it was given to sign. */
async function take(events: IncomingEvent[]) {
  const signed: DeliveryToSign[] = [];
  const batch = await recordEvents(pool, events, { mark: () => 1, sign: (toSign) => signed.push(...toSign) });
  await batch.committed;
  return { recorded: batch.events, signed };
}

const hooksOf = (recorded: { deliveries: { hookId: string }[] }) => recorded.deliveries.map((d) => d.hookId);

describe("event intake", () => {
  it("fans each event out to its tenant's active hooks of its kind that were active before it occurred", async () => {
    const events = [
      incoming("ten_a", "order.created"),
      incoming("ten_a", "order.updated"),
      incoming("ten_b", "order.created"),
      incoming("ten_c", "order.created"),
    ];
    const { recorded, signed } = await take(events);
    // hook_c became active after the event occurred; hook_d is paused; hook_e is of another kind.
    expect(recorded.map(hooksOf)).toEqual([["hook_a", "hook_b"], ["hook_e"], ["hook_f"], []]);
    expect(recorded.map((r) => r.fresh)).toEqual([true, true, true, true]);
    // hook_b's delivery waits in its entity's queue; what is sent at once is signed with its hook's url and secret.
    expect(recorded[0].deliveries[1]).toMatchObject({ hookId: "hook_b", entity: expect.any(String), streamSeq: events[0].streamSeq });
    expect(signed.map((s) => [s.delivery.hookId, s.url, s.secretSealed])).toEqual([
      ["hook_a", "http://127.0.0.1/hook_a", "sealed-hook_a"],
      ["hook_e", "http://127.0.0.1/hook_e", "sealed-hook_e"],
      ["hook_f", "http://127.0.0.1/hook_f", "sealed-hook_f"],
    ]);
  });

  it("goes to a hook active since before the event's own time, not the time it arrives", async () => {
    const late = incoming("ten_a", "order.created", new Date(Date.now() + 2 * 3_600_000).toISOString());
    const { recorded } = await take([late]);
    expect(hooksOf(recorded[0])).toEqual(["hook_a", "hook_b", "hook_c"]);
  });

  it("logs an event once: a copy in the same batch gets no deliveries, one that comes again later gets them again, unsigned", async () => {
    const event = incoming("ten_a", "order.created");
    const first = await take([event, event]);
    expect(first.recorded.map((r) => [r.fresh, hooksOf(r)])).toEqual([
      [true, ["hook_a", "hook_b"]],
      [false, []],
    ]);
    const again = await take([event]);
    expect(again.recorded.map((r) => [r.fresh, hooksOf(r)])).toEqual([[false, ["hook_a", "hook_b"]]]);
    expect(again.signed).toEqual([]);
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM event_log WHERE id = $1", [event.event.id]);
    expect(rows[0].n).toBe(1);
  });

  it("logs each event's text as it came, whatever its strings hold, and nothing that text could pass for", async () => {
    const tricky = incoming("ten_a", "order.updated");
    // Strings that look like the batch's own syntax: a row's end, another row, the dollar-quote tag.
    const note = 'quote " backslash \\ }, {"id": "evt_injected0000", "tenant_id": "ten_a"} $waybill$ é 😀 \n';
    const event = { ...tricky.event, note, nested: { list: [1, "two", null] } } as unknown as EventEnvelope;
    // Received pretty-printed, as a publisher may send it: the text is put in the batch as it came.
    const eventJson = JSON.stringify(event, null, 2);
    const plain = incoming("ten_a", "order.updated");
    const { recorded } = await take([{ ...tricky, event, eventJson }, plain]);
    expect(recorded.map((r) => r.fresh)).toEqual([true, true]);
    const { rows } = await pool.query<{ id: string; event: unknown }>("SELECT id, event FROM event_log WHERE id = ANY($1) OR id = 'evt_injected0000'", [
      [event.id, plain.event.id],
    ]);
    expect(new Map(rows.map((r) => [r.id, r.event]))).toEqual(
      new Map([
        [event.id, JSON.parse(eventJson)],
        [plain.event.id, JSON.parse(plain.eventJson)],
      ]),
    );
  });

  it("takes the events a consumer hands over one by one in a turn in one statement", async () => {
    const takeEvent = createEventIntake({ pool, signer: { mark: () => 1, sign: () => {} } });
    const intakes: Promise<Intake>[] = [];
    // As the EVENTS consumer does with a pulled group: one event, then awaits, then the next.
    for (const event of [1, 2, 3, 4].map(() => incoming("ten_a", "order.created"))) {
      intakes.push(takeEvent(event.tenantId, event.event, event.eventJson, event.streamSeq));
      await Promise.resolve();
      await Promise.resolve();
    }
    const taken = await Promise.all(intakes);
    await taken[0].committed;
    expect(taken.map((t) => t.fresh)).toEqual([true, true, true, true]);
    // One statement answers one `committed` for all its events; the first used to go alone.
    expect(new Set(taken.map((t) => t.committed)).size).toBe(1);
  });
});
