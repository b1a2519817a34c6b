// Recover and manual retry on a `perEntity` hook keep each entity's order: after an outage, the
// events a receiver missed join their entity's queue in the order they occurred, and nothing that
// already reached it with success is sent again (issue 36, item 1).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, otherTenant, setOrderStatus, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createGate, createHook, executionsOf, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const STATUSES = ["ready", "inProgress", "completed"];
/** The one retry of a failed delivery comes this long after it: well after the recovery. */
const RETRY_AFTER_MS = 20_000;

interface Seen {
  orderId: string;
  eventId: string;
  status: string;
  answer: number;
}

/** A receiver of one test's own, what it saw, and when it answers 503. */
interface Watch {
  receiver: TestReceiver;
  seen: Seen[];
  /** The receiver answers 503 until then (ms since the epoch; 0: healthy). */
  down(untilMs: number): void;
  downUntil(): number;
  /** The receiver holds its answers at the gate until it opens (createGate). */
  hold(gate: Promise<void> | undefined): void;
  sequenceOf(orderId: string): string[];
  succeededOf(orderId: string): string[];
}

async function startWatch(): Promise<Watch> {
  const seen: Seen[] = [];
  let downUntil = 0;
  let held: Promise<void> | undefined;
  const receiver = await startReceiver(async (_i, request) => {
    const answer = Date.now() < downUntil ? 503 : 200;
    seen.push({ orderId: request.json.orderId, eventId: request.json.id, status: request.json.currentOrderStatus, answer });
    await held;
    return { status: answer, body: answer === 200 ? "ok" : "down" };
  });
  return {
    receiver,
    seen,
    down: (untilMs) => {
      downUntil = untilMs;
    },
    downUntil: () => downUntil,
    hold: (gate) => {
      held = gate;
    },
    sequenceOf: (orderId) => seen.filter((s) => s.orderId === orderId).map((s) => `${s.status}:${s.answer}`),
    succeededOf: (orderId) => seen.filter((s) => s.orderId === orderId && s.answer === 200).map((s) => s.status),
  };
}

// The tests run side by side on one stack (each mostly waits out RETRY_AFTER_MS), each in a
// tenant of its own with its own hook and receiver, so that no test's outage reaches another's hook.
describe.concurrent("a perEntity hook after an outage", () => {
  let stack: Stack;
  const watches: Watch[] = [];
  /** A new tenant's client, and a receiver for its hook. */
  const watch = async (): Promise<Watch & { call: Call }> => {
    const [started, tenant] = await Promise.all([startWatch(), otherTenant(stack)]);
    watches.push(started);
    return { ...started, call: client(stack, tenant.token) };
  };

  beforeAll(async () => {
    stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: `${RETRY_AFTER_MS}ms` } });
  });
  afterAll(async () => {
    await Promise.all(watches.map((w) => w.receiver.close()));
    await stack?.stop();
  });

  it("recover sends what each order missed in the order it occurred, and nothing that succeeded again", async ({ expect }) => {
    const { call, receiver, seen, down, downUntil, sequenceOf, succeededOf } = await watch();
    const hook = await createHook(call, { url: receiver.url, on: "order.status.changed", ordering: "perEntity" } as never);
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 100);
    const since = new Date(Date.now() - 1_000).toISOString();

    // 2.5 s of 503 while five orders go ready → inProgress → completed.
    down(Date.now() + 2_500);
    const orders: string[] = [];
    for (let i = 0; i < 5; i++) orders.push((await createOrder(call, customerId, [{ productId, quantity: 1 }])).id);
    for (const status of STATUSES) for (const orderId of orders) expect((await setOrderStatus(call, orderId, status)).status).toBe(200);
    await eventually(async () => (seen.filter((s) => s.answer === 503).length >= 1 ? true : undefined), 15_000);
    await sleep(Math.max(0, downUntil() - Date.now()));

    // Healthy now: a sixth order's events all arrive before the recovery (after the circuit
    // breaker the outage opened lets a trial through), and must not be sent again by it.
    const healthy = (await createOrder(call, customerId, [{ productId, quantity: 1 }])).id;
    for (const status of STATUSES) expect((await setOrderStatus(call, healthy, status)).status).toBe(200);
    await eventually(async () => (succeededOf(healthy).length === 3 ? true : undefined), 15_000);

    const recovered = await call(`/hooks/${hook.id}/recover`, { json: { since } });
    expect(recovered.status, JSON.stringify(recovered.body)).toBe(202);
    expect(recovered.body.truncated).toBe(false);

    await eventually(async () => (orders.every((o) => succeededOf(o).length >= 3) ? true : undefined), 20_000);
    // The deliveries that failed during the outage still had their retry due: wait past it, so a
    // retry that went out after the recovery delivered the event would be seen.
    await sleep(RETRY_AFTER_MS * 1.2 + 1_000);

    for (const orderId of [...orders, healthy]) {
      // In occurrence order, counting only what the receiver accepted…
      expect(succeededOf(orderId), `${orderId}: ${sequenceOf(orderId).join(",")}`).toEqual(STATUSES);
      // …and once each: nothing that had succeeded was sent again.
      const events = seen.filter((s) => s.orderId === orderId);
      for (const event of new Set(events.map((s) => s.eventId))) {
        const attempts = events.filter((s) => s.eventId === event);
        const firstSuccess = attempts.findIndex((s) => s.answer === 200);
        expect(attempts.length - 1 - firstSuccess, `${orderId}: ${sequenceOf(orderId).join(",")}`).toBe(0);
      }
    }
    expect(sequenceOf(healthy)).toEqual(["ready:200", "inProgress:200", "completed:200"]);
    const executions = await executionsOf(call, hook.id);
    expect(executions.some((e) => e.trigger === "recover" && e.outcome === "succeeded")).toBe(true);
  }, 90_000);

  it("a manual retry joins its entity's queue: a head waiting for its retry goes now, and what waits behind it follows", async ({ expect }) => {
    const { call, receiver, down, sequenceOf, succeededOf } = await watch();
    const hook = await createHook(call, { url: receiver.url, on: "order.status.changed", ordering: "perEntity" } as never);
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 10);
    const orderId = (await createOrder(call, customerId, [{ productId, quantity: 1 }])).id;
    expect((await setOrderStatus(call, orderId, "ready")).status).toBe(200);
    await eventually(async () => (succeededOf(orderId).length === 1 ? true : undefined), 15_000);
    // Recorded just after the receiver answered: wait for it.
    const readyExecution = await eventually(async () => (await executionsOf(call, hook.id)).find((e) => e.outcome === "succeeded"), 15_000);

    // inProgress fails and waits for its retry; completed waits behind it.
    down(Date.now() + 60_000);
    expect((await setOrderStatus(call, orderId, "inProgress")).status).toBe(200);
    await eventually(async () => (sequenceOf(orderId).includes("inProgress:503") ? true : undefined), 15_000);
    expect((await setOrderStatus(call, orderId, "completed")).status).toBe(200);
    down(0);
    // Retrying inProgress by hand sends it now (not at its retry), and completed follows it.
    const inProgressExecution = await eventually(async () => (await executionsOf(call, hook.id)).find((e) => e.outcome === "failed"), 15_000);
    expect((await call(`/hooks/${hook.id}/executions/${inProgressExecution.id}/retry`, { json: {} })).status).toBe(202);
    await eventually(async () => (succeededOf(orderId).length === 3 ? true : undefined), 10_000);
    expect(succeededOf(orderId)).toEqual(STATUSES);
    // Retrying ready by hand sends it again on purpose (it had succeeded): nothing waits, so now.
    expect((await call(`/hooks/${hook.id}/executions/${readyExecution.id}/retry`, { json: {} })).status).toBe(202);
    await eventually(async () => (succeededOf(orderId).length === 4 ? true : undefined), 10_000);
    expect(succeededOf(orderId)).toEqual([...STATUSES, "ready"]);
    // The failed delivery's own retry finds its event delivered and is not sent.
    await sleep(RETRY_AFTER_MS * 1.2 + 1_000);
    expect(succeededOf(orderId)).toEqual([...STATUSES, "ready"]);
  }, 90_000);

  /**
   * An unordered hook and an order whose `ready` its receiver answers 503 (the answer held at
   * `held` when given); answers once the receiver has seen it.
   */
  const readyRefused = async (w: Watch & { call: Call }, held?: Promise<void>) => {
    const hook = await createHook(w.call, { url: w.receiver.url, on: "order.status.changed" });
    expect(hook.ordering).toBe("none");
    const customerId = await createCustomer(w.call);
    const productId = await createStockedProduct(w.call, 10);
    const orderId = (await createOrder(w.call, customerId, [{ productId, quantity: 1 }])).id;
    w.down(Date.now() + 60_000);
    w.hold(held);
    expect((await setOrderStatus(w.call, orderId, "ready")).status).toBe(200);
    await eventually(async () => (w.sequenceOf(orderId).includes("ready:503") ? true : undefined), 15_000);
    return { hook, orderId };
  };
  const failureRecorded = async (call: Call, hookId: string) =>
    eventually(async () => ((await executionsOf(call, hookId)).some((e) => e.outcome === "failed") ? true : undefined), 15_000);
  const turnOrderingOn = async (call: Call, hookId: string) => {
    const changed = await call(`/hooks/${hookId}`, { method: "PUT", json: { ordering: "perEntity" } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  };
  /** The receiver healthy, the order goes on: ready (its retry in front), then the others; ready's own retry is never sent. */
  const laterEventsWaitForReady = async (w: Watch & { call: Call }, orderId: string) => {
    for (const status of ["inProgress", "completed"]) expect((await setOrderStatus(w.call, orderId, status)).status).toBe(200);
    await eventually(async () => (w.succeededOf(orderId).length === 3 ? true : undefined), 15_000);
    expect(w.succeededOf(orderId), w.sequenceOf(orderId).join(",")).toEqual(STATUSES);
    // The retry ready was waiting for finds its place taken (or its event delivered) and is not sent.
    await sleep(RETRY_AFTER_MS * 1.2 + 1_000);
    expect(w.sequenceOf(orderId)).toEqual(["ready:503", "ready:200", "inProgress:200", "completed:200"]);
  };

  it("turning ordering on puts a delivery waiting for its retry back in front of its entity's later events", async () => {
    const w = await watch();
    const { hook, orderId } = await readyRefused(w);
    // Its failure recorded: this test is of a retry waiting when ordering is turned on; the next
    // one is of an attempt still on its way then.
    await failureRecorded(w.call, hook.id);
    w.down(0);
    // ready waits for its retry (RETRY_AFTER_MS away); unordered, inProgress would overtake it.
    await turnOrderingOn(w.call, hook.id);
    await laterEventsWaitForReady(w, orderId);
  }, 90_000);

  it("turning ordering on while an attempt is on its way puts that attempt's retry in front when it fails", async () => {
    const w = await watch();
    const gate = createGate();
    const { hook, orderId } = await readyRefused(w, gate.passed);
    // ready's attempt is on its way (the receiver has not answered): nothing is recorded yet.
    await turnOrderingOn(w.call, hook.id);
    expect(await executionsOf(w.call, hook.id)).toEqual([]);
    // Healthy before the held answer (503, decided when the attempt arrived) goes out: the copy its
    // record queues is sent at once, before a poll could see the failure and make it healthy then.
    w.down(0);
    gate.open();
    // Its record sees the hook ordered and puts its retry in its entity's queue, sent now.
    await failureRecorded(w.call, hook.id);
    await laterEventsWaitForReady(w, orderId);
  }, 90_000);
});
