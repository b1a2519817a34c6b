// Per-entity ordered delivery (`ordering: "perEntity"`): the events about one entity reach the
// hook one at a time in the order they occurred, through failures and retries, while the other
// entities' events go on; turning ordering off releases what waits.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@waybill/platform/ids.js";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, headers, TENANT_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import { client, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createGate, createHook, LOOPBACK_RECEIVERS, startReceiver, type ReceivedRequest, type TestReceiver } from "./webhooks-fixtures.js";

let stack: Stack;
let call: Call;
let bus: Bus;
let tenantId: string;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: "20ms,40ms,80ms,160ms", WEBHOOK_CONCURRENCY_PER_HOOK: "8" } });
  call = client(stack);
  bus = await connectBus({ url: stack.env.natsUrl, name: "ordering-test", topology: stack.env.topology, logger: createLogger("ordering-test", "silent") });
  const db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  tenantId = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
  await db.end();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await bus?.close();
  await stack?.stop();
});

let clock = 0;
/** Publishes order.status.changed events about `orderId` as its service would: in the order they occur. */
async function publishStatusChange(orderId: string, n: number): Promise<void> {
  const h = headers();
  h.set(TENANT_ID_NATS_HEADER, tenantId);
  const id = newId("evt");
  clock = Math.max(clock + 1, Date.now()); // after the hook's creation, and strictly increasing
  const event = {
    id,
    kind: "order.status.changed",
    time: new Date(clock).toISOString(),
    transactionId: `tx-${n}`,
    orderId,
    previousOrderStatus: "pending",
    currentOrderStatus: "ready",
    n,
  };
  await bus.js.publish(stack.env.topology.eventSubject(tenantId, "order.status.changed"), JSON.stringify(event), { headers: h, msgID: id });
}

/** A receiver that records, per order, the requests in flight at once and the order of arrival. */
async function orderedReceiver(answer: (request: ReceivedRequest, firstTime: boolean) => Promise<number>) {
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const seen = new Set<string>();
  const delivered = new Map<string, number[]>();
  const receiver = await startReceiver(async (_i, request) => {
    const orderId = request.json.orderId as string;
    const now = (inFlight.get(orderId) ?? 0) + 1;
    inFlight.set(orderId, now);
    maxInFlight.set(orderId, Math.max(now, maxInFlight.get(orderId) ?? 0));
    const firstTime = !seen.has(request.json.id);
    seen.add(request.json.id);
    const status = await answer(request, firstTime);
    inFlight.set(orderId, (inFlight.get(orderId) ?? 1) - 1);
    if (status === 200) delivered.set(orderId, [...(delivered.get(orderId) ?? []), request.json.n]);
    return { status };
  });
  receivers.push(receiver);
  const attemptsOf = (orderId: string) => receiver.received.filter((r) => r.json.orderId === orderId).map((r) => r.json.n as number);
  return { receiver, maxInFlight, delivered, attemptsOf };
}

describe("a hook with ordering perEntity", () => {
  it("gets each order's events one at a time and in order, through retries, while a held order does not delay the others", async () => {
    const held = createGate();
    const orders = Array.from({ length: 6 }, () => `ord_${randomBytes(6).toString("hex")}`);
    const [slow, ...others] = orders;
    // Every third event of these orders fails on its first attempt, so order must hold through
    // retries. Only three orders: each has at most one failure before its retry succeeds, so no
    // more than three fail in a row, below the circuit breaker's five. With every order failing,
    // five failures sometimes came together and opened the breaker (a run of 13.6 s counted five
    // deliveries deferred for it, runs of 1.1 s none), and the wait below ran out once in CI
    // (this test is about order, not the breaker).
    const failing = new Set([slow, others[1], others[3]]);
    const PER_ORDER = 12;
    const target = await orderedReceiver(async (request, firstTime) => {
      if (request.json.orderId === slow && request.json.n === 0) {
        await held.passed; // the slow order's first event waits here until the test lets it through
        return 200;
      }
      return firstTime && failing.has(request.json.orderId as string) && request.json.n % 3 === 1 ? 500 : 200;
    });
    const hook = await createHook(call, { url: target.receiver.url, on: "order.status.changed", ordering: "perEntity" } as never);
    expect(hook.ordering).toBe("perEntity");

    for (let n = 0; n < PER_ORDER; n++) for (const orderId of orders) await publishStatusChange(orderId, n);

    // Every other order's events all arrive while the slow order's first event is still held.
    await eventually(async () => (others.every((o) => (target.delivered.get(o)?.length ?? 0) === PER_ORDER) ? true : undefined), 20_000);
    expect(target.attemptsOf(slow)).toEqual([0]);
    held.open();
    await eventually(async () => ((target.delivered.get(slow)?.length ?? 0) === PER_ORDER ? true : undefined), 20_000);

    const inOrder = Array.from({ length: PER_ORDER }, (_, n) => n);
    for (const orderId of orders) {
      expect(target.delivered.get(orderId), orderId).toEqual(inOrder);
      // Attempts too: a retried event is tried again before the next one is tried at all.
      const attempts = target.attemptsOf(orderId);
      expect(
        [...attempts].sort((a, b) => a - b),
        orderId,
      ).toEqual(attempts);
      expect(target.maxInFlight.get(orderId), orderId).toBe(1);
    }
    // The retries happened (the failures were real) and were recorded as executions.
    const retried = target.receiver.received.filter((r) => failing.has(r.json.orderId as string) && r.json.n % 3 === 1).length;
    expect(retried).toBe(failing.size * (PER_ORDER / 3) * 2);
  });

  it("keeps each order's events in order when they come in a burst, taken in by statements side by side", async () => {
    const orders = Array.from({ length: 5 }, () => `ord_${randomBytes(6).toString("hex")}`);
    const PER_ORDER = 40;
    const target = await orderedReceiver(async () => 200);
    await createHook(call, { url: target.receiver.url, on: "order.status.changed", ordering: "perEntity" } as never);
    // Published at once, in the order they occur: the intake takes them in by several statements,
    // two in flight at a time, each order's events spread over them.
    const published: Promise<void>[] = [];
    for (let n = 0; n < PER_ORDER; n++) for (const orderId of orders) published.push(publishStatusChange(orderId, n));
    await Promise.all(published);
    await eventually(async () => (orders.every((o) => (target.delivered.get(o)?.length ?? 0) === PER_ORDER) ? true : undefined), 30_000);
    const inOrder = Array.from({ length: PER_ORDER }, (_, n) => n);
    for (const orderId of orders) {
      expect(target.delivered.get(orderId), orderId).toEqual(inOrder);
      expect(target.maxInFlight.get(orderId), orderId).toBe(1);
    }
  });

  it("sends what waits behind a held event once ordering is turned off", async () => {
    const held = createGate();
    const orderId = `ord_${randomBytes(6).toString("hex")}`;
    const target = await orderedReceiver(async (request) => {
      if (request.json.n === 0) await held.passed;
      return 200;
    });
    const hook = await createHook(call, { url: target.receiver.url, on: "order.status.changed", ordering: "perEntity" } as never);
    for (let n = 0; n < 5; n++) await publishStatusChange(orderId, n);
    await target.receiver.waitFor(1);
    // Queued, not sent: a later event about another order goes straight through meanwhile.
    const other = `ord_${randomBytes(6).toString("hex")}`;
    await publishStatusChange(other, 9);
    await eventually(async () => (target.delivered.get(other) ? true : undefined));
    expect(target.attemptsOf(orderId)).toEqual([0]);

    const changed = await call(`/hooks/${hook.id}`, { method: "PUT", json: { ordering: "none" } });
    expect(changed.status).toBe(200);
    expect(changed.body.ordering).toBe("none");
    await eventually(async () => ((target.delivered.get(orderId)?.length ?? 0) === 4 ? true : undefined));
    expect([...(target.delivered.get(orderId) ?? [])].sort()).toEqual([1, 2, 3, 4]);
    held.open();
    await eventually(async () => ((target.delivered.get(orderId)?.length ?? 0) === 5 ? true : undefined));
  });

  it("is refused with 422 for an unknown ordering, and shown on every hook", async () => {
    const bad = await call("/hooks", { json: { name: "x", url: "https://example.com/h", on: "order.created", ordering: "strict" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("ordering");
    const plain = await createHook(call, { url: "https://example.com/h", on: "order.created" });
    expect(plain.ordering).toBe("none");
  });
});
