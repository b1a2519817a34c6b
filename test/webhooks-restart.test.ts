// At-least-once across a dispatcher crash: the dispatcher runs as its own process (as in
// production), is killed with SIGKILL while deliveries are in flight to a slow receiver, events
// keep coming while it is down, and a new dispatcher process is started. Every event reaches every
// subscribed hook at least once; whatever arrives twice is the same event (same id, same body).
// The rest of the stack runs in-process; the edge finds the new dispatcher on the same gRPC port.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "@waybill/sdk";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { runTs, type Child } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";
import { LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const BEFORE = 30;
const WHILE_DOWN = 10;
// What the killed process had taken is redelivered after the consumers' ack wait: shortened here
// (CONSUMER_ACK_WAIT_MS) so that it happens within the test; production keeps 30 s.
const ACK_WAIT_MS = 2_000;

let stack: Stack;
let call: Call;
let customerId: string;
let productId: string;
let grpcPort: number;
const children: Child[] = [];
const receivers: TestReceiver[] = [];

/** Starts `services/dispatcher/main.ts` as a child process on the stack's dispatcher gRPC port. */
async function startDispatcherProcess(): Promise<Child> {
  const child = runTs("services/dispatcher/main.ts", { ...stack.serviceEnv, GRPC_PORT: String(grpcPort), OPS_PORT: "0", LOG_LEVEL: "info" });
  children.push(child);
  await child.waitForOutput(/"msg":"dispatcher started"/, 60_000);
  return child;
}

beforeAll(async () => {
  stack = await startStack({
    extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,400ms,800ms", CONSUMER_ACK_WAIT_MS: String(ACK_WAIT_MS) },
  });
  call = client(stack);
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 0);
  // The stack's in-process dispatcher gives way to a real process on the same port.
  grpcPort = stack.dispatcher.grpcPort;
  await stack.dispatcher.stop();
  await startDispatcherProcess();
}, 120_000);

afterAll(async () => {
  for (const child of children) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) continue;
    child.process.kill("SIGTERM");
    await child.exited(30_000).catch(() => child.process.kill("SIGKILL"));
  }
  await Promise.all(receivers.map((r) => r.close()));
  await stack?.stop();
}, 60_000);

const ids = (receiver: TestReceiver) => new Set(receiver.received.map((r) => r.json.id));

describe("killing the dispatcher process mid-delivery", () => {
  it("loses nothing: every event reaches every subscribed hook at least once, duplicates are the same event", async () => {
    // Slow receivers keep deliveries in flight; one of them also fails now and then. The slow one
    // holds its answers until the kill, so the kill finds deliveries in flight however fast the
    // orders come (on a slow machine, 150 ms answers kept up with them: all 30 were in before it).
    let releaseHeld = () => {};
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    const slow = await startReceiver(async () => {
      await held;
      await sleep(150);
      return { status: 200 };
    });
    const flaky = await startReceiver(async (index) => {
      await sleep(50);
      return index % 3 === 0 ? { status: 500 } : { status: 200 };
    });
    receivers.push(slow, flaky);
    // The edge reconnects to the dispatcher process by itself; until then it answers 503.
    const hook = (fields: { url: string; on: string }) =>
      eventually(
        async () => {
          const answer = await call("/hooks", { json: { name: `hook ${fields.on}`, ...fields } });
          return answer.status === 201 ? answer.body : undefined;
        },
        30_000,
        200,
      );
    await hook({ url: slow.url, on: "order.created" });
    await hook({ url: flaky.url, on: "order.created" });

    const orderIds: string[] = [];
    const order = async () => orderIds.push((await createOrder(call, customerId, [{ productId, quantity: 1 }])).id);
    for (let i = 0; i < BEFORE; i++) await order();
    await slow.waitFor(3);
    const [first] = children;
    first.process.kill("SIGKILL");
    const receivedAtKill = slow.received.length;
    expect(receivedAtKill).toBeLessThan(BEFORE); // the kill came in the middle of the deliveries
    expect(await first.exited(10_000)).toBeNull(); // killed, not exited
    releaseHeld();

    for (let i = 0; i < WHILE_DOWN; i++) await order();
    await startDispatcherProcess();

    const events = await eventually(
      async () => {
        const answer = await call("/events?kind=order.created&limit=100");
        return answer.status === 200 && answer.body.data.length === orderIds.length ? answer.body.data : undefined;
      },
      30_000,
      200,
    );
    const expected = new Set<string>(events.map((e: EventRecord) => e.id));
    for (const receiver of [slow, flaky]) {
      await eventually(async () => ([...expected].every((id) => ids(receiver).has(id)) ? true : undefined), 60_000, 100);
      // Duplicates are allowed (at-least-once), but each is the same event: same id, same body.
      const byId = new Map<string, string>();
      for (const r of receiver.received) {
        expect(byId.get(r.json.id) ?? r.rawBody).toBe(r.rawBody);
        byId.set(r.json.id, r.rawBody);
      }
      expect(new Set(byId.keys())).toEqual(expected);
    }
    expect(new Set(slow.received.map((r) => r.json.orderId))).toEqual(new Set(orderIds));
    // The deliveries the killed process had in flight were delivered again by the new one.
    expect(slow.received.length, "no duplicates: nothing was in flight at the kill?").toBeGreaterThan(expected.size);
  }, 180_000);
});
