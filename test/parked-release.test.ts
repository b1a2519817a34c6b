// The release rounds of parked deliveries (services/dispatcher/parked-deliveries.ts) on a real
// database: nothing while the breaker holds the hook back, probes that grow while it does not,
// everything once a delivery succeeded, and a message id of their own for what goes back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { createLogger } from "@waybill/platform/logger.js";
import { migrate } from "@waybill/platform/migrations.js";
import { newId } from "@waybill/platform/ids.js";
import type { DeliveryMessage } from "../services/dispatcher/delivery-message.js";
import { hooksWithParked, parkDeliveries, startParkedRelease, type ParkedRelease } from "../services/dispatcher/parked-deliveries.js";
import { DISPATCHER_SCHEMA, DISPATCHER_SERVICE_SCHEMA } from "../services/dispatcher/service.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

const tenantId = "ten_parked";
let env: TestEnvironment;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 4, applicationName: "waybill-test-parked" });
  await migrate(pool, DISPATCHER_SCHEMA, [DISPATCHER_SERVICE_SCHEMA.migrationsDir]);
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

async function hookWithParked(count: number, status = "active"): Promise<string> {
  const hookId = newId("hook");
  await pool.query(
    `INSERT INTO hooks (id, tenant_id, name, url, on_kind, status, ordering, secret_sealed, secret_last_rotated_at, active_since)
     VALUES ($1, $2, 'parked', 'http://127.0.0.1/', 'order.created', $3, 'none', 'sealed', now(), now())`,
    [hookId, tenantId, status],
  );
  const deliveries: DeliveryMessage[] = Array.from({ length: count }, (_, n) => {
    const eventId = newId("evt");
    return {
      deliveryId: `${eventId}:${hookId}`,
      tenantId,
      hookId,
      trigger: "event",
      eventId,
      eventKind: "order.created",
      eventTime: new Date(Date.UTC(2026, 10, 1, 0, 0, n)).toISOString(),
      eventJson: JSON.stringify({ id: eventId, kind: "order.created", n }),
    };
  });
  // One at a time, so that they are parked in order.
  for (const delivery of deliveries) await parkDeliveries(pool, [{ delivery, transactionId: `txn_${delivery.eventId}` }]);
  return hookId;
}

describe("release of parked deliveries", () => {
  let release: ParkedRelease | undefined;
  afterAll(() => release?.stop());

  it("sends nothing while the breaker holds back, growing probes while it does not, and the rest once a delivery succeeded", async () => {
    const hookId = await hookWithParked(40);
    const paused = await hookWithParked(3, "paused");
    const stored: { delivery: DeliveryMessage; msgId?: string; transactionId?: string }[] = [];
    let blocked = true;
    release = startParkedRelease({
      pool,
      store: async (delivery, trace) => {
        stored.push({ delivery, msgId: trace.msgId, transactionId: trace.transactionId });
      },
      logger: createLogger("test", "silent"),
      blockedForMs: () => (blocked ? 1_000 : 0),
      intervalMs: 3_600_000, // rounds are run by the test
    });

    await release.round();
    expect(stored).toEqual([]);

    blocked = false;
    for (const expected of [1, 2, 4]) {
      const before = stored.length;
      await release.round();
      expect(stored.length - before).toBe(expected);
    }
    // Oldest first, with their transaction ids, under message ids of their own.
    expect(stored[0].delivery.eventJson).toContain('"n":0');
    expect(stored.map((s) => JSON.parse(s.delivery.eventJson).n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(stored[0].transactionId).toBe(`txn_${stored[0].delivery.eventId}`);
    expect(stored[0].msgId).toMatch(new RegExp(`^${stored[0].delivery.deliveryId}:parked:\\d+$`));

    // The breaker opens again (a probe failed): nothing, and the next probe is one again.
    blocked = true;
    await release.round();
    expect(stored).toHaveLength(7);
    blocked = false;
    await release.round();
    expect(stored).toHaveLength(8);

    release.succeeded(hookId);
    await release.round();
    expect(stored).toHaveLength(40);
    expect(new Set(stored.map((s) => s.delivery.deliveryId)).size).toBe(40);
    expect(stored.every((s) => s.delivery.hookId === hookId)).toBe(true); // the paused hook's stay
    const left = await hooksWithParked(pool);
    expect(left.has(hookId)).toBe(false);
    expect((await pool.query("SELECT count(*)::int AS n FROM parked_deliveries WHERE hook_id = $1", [paused])).rows[0].n).toBe(3);
  });

  it("keeps a delivery parked when JetStream does not take it", async () => {
    const hookId = await hookWithParked(2);
    const failing = startParkedRelease({
      pool,
      store: async () => {
        throw new Error("nats away");
      },
      logger: createLogger("test", "silent"),
      blockedForMs: () => 0,
      intervalMs: 3_600_000,
    });
    failing.succeeded(hookId); // not yet known as parked here: ignored, so this round probes
    await failing.round();
    await failing.stop();
    expect((await pool.query("SELECT count(*)::int AS n FROM parked_deliveries WHERE hook_id = $1", [hookId])).rows[0].n).toBe(2);
  });
});
