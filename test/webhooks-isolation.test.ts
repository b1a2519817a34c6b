// No head-of-line blocking: a hook whose receiver never answers holds only its own delivery slots;
// another hook subscribed to the same events keeps getting them within a second.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const ORDERS = 60;
const PER_HOOK = 4;

let stack: Stack;
let call: Call;
let customerId: string;
let dead: TestReceiver;
let alive: TestReceiver;
beforeAll(async () => {
  // A long timeout, so the dead receiver's deliveries stay stuck for the whole test.
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_TIMEOUT_MS: "20000", WEBHOOK_CONCURRENCY_PER_HOOK: String(PER_HOOK) } });
  call = client(stack);
  customerId = await createCustomer(call);
  dead = await startReceiver(() => "hang");
  alive = await startReceiver();
});
afterAll(async () => {
  await dead?.close();
  await alive?.close();
  await stack?.stop();
});

describe("a hook whose receiver never answers", () => {
  it("does not slow another hook: each of its deliveries arrives within a second of the change", async () => {
    const stuck = await createHook(call, { url: dead.url, on: "order.created" });
    await createHook(call, { url: alive.url, on: "order.created" });
    // Far more events than the stuck hook has delivery slots and queue places.
    const committed = new Map<string, number>();
    for (let i = 0; i < ORDERS; i++) {
      const order = await createOrder(call, customerId, [{ productId: "prd_01jc0000000000000000000001", quantity: 1 }]);
      committed.set(order.id, Date.now()); // the order and its event are committed by now
    }
    await alive.waitFor(ORDERS, 20_000);
    const latencies = alive.received.map((r) => r.at - committed.get(r.json.orderId)!);
    expect(Math.max(...latencies), `latencies: ${latencies.join(", ")}`).toBeLessThan(1_000);
    expect(new Set(alive.received.map((r) => r.json.orderId)).size).toBe(ORDERS);
    // The stuck hook got exactly as many at once as its lane allows, and is still waiting on them.
    await sleep(300);
    expect(dead.received.length).toBe(PER_HOOK);
    expect((await call(`/hooks/${stuck.id}`)).body.successCount).toBe(0);
  });
});
