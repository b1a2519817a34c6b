// No head-of-line blocking: a hook whose receiver never answers, or answers slowly with a long
// backlog, holds only its own delivery slots; another hook subscribed to the same events keeps
// getting them meanwhile. The assertions compare what each receiver got at the same moment (no
// clock thresholds): the healthy hook is served completely while the other is still stuck.
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISPATCHER_SCHEMA } from "../services/dispatcher/service.js";
import { createPool } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import { headers, TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";
import { eventually } from "./support/http.js";
import { createHook, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const ORDERS = 60;
const PER_HOOK = 4;

let stack: Stack;
let call: Call;
let customerId: string;
let productId: string;
let dead: TestReceiver;
let alive: TestReceiver;
beforeAll(async () => {
  // A long timeout, so the dead receiver's deliveries stay stuck for the whole test.
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_TIMEOUT_MS: "20000", WEBHOOK_CONCURRENCY_PER_HOOK: String(PER_HOOK) } });
  call = client(stack);
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 0);
  dead = await startReceiver(() => "hang");
  alive = await startReceiver();
});
afterAll(async () => {
  await dead?.close();
  await alive?.close();
  await stack?.stop();
});

describe("a hook whose receiver never answers", () => {
  it("does not hold back another hook: every event reaches it while the stuck hook still waits on its first ones", async () => {
    const stuck = await createHook(call, { url: dead.url, on: "order.created" });
    await createHook(call, { url: alive.url, on: "order.created" });
    // Far more events than the stuck hook has delivery slots and queue places.
    for (let i = 0; i < ORDERS; i++) await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    await alive.waitFor(ORDERS, 20_000);
    expect(new Set(alive.received.map((r) => r.json.orderId)).size).toBe(ORDERS);
    // One more event, offered to both hooks after all the others: once the healthy hook has it,
    // the stuck hook has been offered everything, and still holds only what its lane runs at once.
    const last = await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    await eventually(async () => (alive.received.some((r) => r.json.orderId === last.id) ? true : undefined));
    expect(dead.received.length).toBe(PER_HOOK);
    expect((await call(`/hooks/${stuck.id}`)).body.successCount).toBe(0);
  });
});

describe("a hook whose receiver is slow, with a backlog of hundreds of events", () => {
  const WARM_UP = 12;
  const BACKLOG = 600;
  const AFTER = 30;
  const SLOW_MS = 150;

  /** A burst of customer.created events put straight onto EVENTS, as a bulk import would produce them. */
  async function publishBurst(tenantId: string, count: number): Promise<void> {
    const nc = await connect({ servers: stack.env.natsUrl });
    try {
      const js = jetstream(nc);
      for (let i = 0; i < count; i += 50) {
        await Promise.all(
          Array.from({ length: Math.min(50, count - i) }, () => {
            const event = {
              id: newId("evt"),
              kind: "customer.created",
              time: new Date().toISOString(),
              transactionId: newId("txn"),
              customerId: newId("cus"),
              name: "Bulk",
              email: null,
              phone: null,
              address: null,
            };
            const h = headers();
            h.set(TENANT_ID_NATS_HEADER, tenantId);
            h.set(TRANSACTION_ID_NATS_HEADER, event.transactionId);
            return js.publish(stack.env.topology.eventSubject(tenantId, event.kind), JSON.stringify(event), { msgID: event.id, headers: h });
          }),
        );
      }
    } finally {
      await nc.close();
    }
  }

  async function tenantOf(hookId: string): Promise<string> {
    const pool = createPool({ databaseUrl: stack.env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 1, applicationName: "waybill-test" });
    try {
      return (await pool.query<{ tenant_id: string }>("SELECT tenant_id FROM hooks WHERE id = $1", [hookId])).rows[0].tenant_id;
    } finally {
      await pool.end();
    }
  }

  it("does not slow another hook: it gets the whole backlog and every later change while the slow hook is still working through it", async () => {
    const slow = await startReceiver(async () => {
      await sleep(SLOW_MS);
      return { status: 200 };
    });
    const instant = await startReceiver();
    try {
      const slowHook = await createHook(call, { url: slow.url, on: "customer.created" });
      await createHook(call, { url: instant.url, on: "customer.created" });
      // First a few, so that the dispatcher knows the slow receiver's pace (and sizes its lane by it)…
      for (let i = 0; i < WARM_UP; i++) await createCustomer(call);
      await slow.waitFor(WARM_UP, 10_000);
      // …then the backlog: minutes of work for PER_HOOK deliveries of 150 ms at a time.
      await publishBurst(await tenantOf(slowHook.id), BACKLOG);
      await instant.waitFor(WARM_UP + BACKLOG, 30_000);
      // The instant hook got the whole backlog (at its own pace) while the slow one still had a good
      // part of it to go; paced by the slow hook, it would have had to wait for nearly all of it.
      expect(slow.received.length).toBeLessThan(WARM_UP + BACKLOG * 0.8);

      // Changes made now, one by one, while the slow hook works through its backlog: each reaches
      // the instant hook before the next is made, and all of them before the slow hook is done.
      const after: string[] = [];
      for (let i = 0; i < AFTER; i++) {
        const customerId = await createCustomer(call);
        after.push(customerId);
        await eventually(async () => (instant.received.some((r) => r.json.customerId === customerId) ? true : undefined), 10_000);
      }
      expect(slow.received.filter((r) => after.includes(r.json.customerId))).toHaveLength(0);
      // The slow hook was still busy with its backlog all along, and is getting it.
      expect(slow.received.length).toBeGreaterThan(WARM_UP);
      expect(slow.received.length).toBeLessThan(WARM_UP + BACKLOG);
    } finally {
      await slow.close();
      await instant.close();
    }
  }, 120_000);
});
