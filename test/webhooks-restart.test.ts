// At-least-once across a dispatcher restart: stopping the dispatcher while deliveries are in
// flight and events keep coming, then starting a new one with the same configuration, loses no
// delivery; whatever arrives twice carries the same event id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDispatcherConfig } from "../services/dispatcher/config.js";
import { startDispatcher, type DispatcherHandle } from "../services/dispatcher/service.js";
import { client, createCustomer, createOrder, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const BEFORE = 30;
const WHILE_DOWN = 10;
// Messages a stopped consumer's last pull request still took are redelivered only after the
// consumers' ack wait (30 s): at least once, not at once. The waits below allow for that.
const REDELIVERY_WAIT_MS = 50_000;

let stack: Stack;
let call: Call;
let customerId: string;
let replacement: DispatcherHandle | undefined;
const receivers: TestReceiver[] = [];
beforeAll(async () => {
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,400ms,800ms" } });
  call = client(stack);
  customerId = await createCustomer(call);
});
afterAll(async () => {
  await replacement?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
});

const ids = (receiver: TestReceiver) => new Set(receiver.received.map((r) => r.json.id));

describe("stopping the dispatcher mid-delivery", () => {
  it("loses nothing: every event reaches every subscribed hook at least once", async () => {
    // Slow receivers keep deliveries in flight; one of them also fails now and then.
    const slow = await startReceiver(async () => (await sleep(150), { status: 200 }));
    const flaky = await startReceiver(async (index) => (await sleep(50), index % 3 === 0 ? { status: 500 } : { status: 200 }));
    receivers.push(slow, flaky);
    await createHook(call, { url: slow.url, on: "order.created" });
    await createHook(call, { url: flaky.url, on: "order.created" });

    const orderIds: string[] = [];
    const order = async () => orderIds.push((await createOrder(call, customerId, [{ productId: "prd_01jc0000000000000000000001", quantity: 1 }])).id);
    for (let i = 0; i < BEFORE; i++) await order();
    await slow.waitFor(3);
    expect(slow.received.length).toBeLessThan(BEFORE); // still under way

    const grpcPort = stack.dispatcher.grpcPort;
    await stack.dispatcher.stop();
    for (let i = 0; i < WHILE_DOWN; i++) await order();
    replacement = await startDispatcher(loadDispatcherConfig({ ...stack.serviceEnv, GRPC_PORT: String(grpcPort) }));

    const events = await eventually(async () => {
      const log = (await call("/events?kind=order.created&limit=100")).body.data;
      return log.length === orderIds.length ? log : undefined;
    }, REDELIVERY_WAIT_MS);
    const expected = new Set<string>(events.map((e: any) => e.id));
    for (const receiver of [slow, flaky]) {
      await eventually(async () => ([...expected].every((id) => ids(receiver).has(id)) ? true : undefined), REDELIVERY_WAIT_MS);
      // Duplicates are allowed (at-least-once), but each is the same event: same id, same body.
      const byId = new Map<string, string>();
      for (const r of receiver.received) {
        if (r.json.kind !== "order.created") continue;
        expect(byId.get(r.json.id) ?? r.rawBody).toBe(r.rawBody);
        byId.set(r.json.id, r.rawBody);
      }
      expect(new Set(byId.keys())).toEqual(expected);
    }
    expect(new Set(slow.received.map((r) => r.json.orderId))).toEqual(new Set(orderIds));
  }, 150_000);
});
