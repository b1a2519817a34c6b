// Two replicas of the dispatcher, orders and the edge, as separate processes (as deployed),
// against one JetStream and one PostgreSQL. The edges balance gRPC calls over both orders and
// both dispatchers (round robin); both dispatchers take events from the same durable consumers.
// One replica of orders and of the dispatcher is killed (SIGKILL) in the middle of the load:
// every order.created event that exists is still delivered to the hook, and nothing is lost.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "@waybill/sdk";
import { createCustomer, createStockedProduct, type Call } from "./orders-fixtures.js";
import { eventually, request } from "./support/http.js";
import { runTs, type Child } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";
import { LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const ORDERS_TOTAL = 60;
const KILL_AFTER = 20;
const ACK_WAIT_MS = 2_000;

let stack: Stack;
const children: Child[] = [];
let receiver: TestReceiver;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Replica {
  child: Child;
  port: number;
  opsPort: number;
}

async function startReplica(entry: string, started: RegExp, env: Record<string, string>): Promise<Replica> {
  const [port, opsPort] = [await freePort(), await freePort()];
  const portEnv = entry.includes("edge") ? { HTTP_PORT: String(port) } : { GRPC_PORT: String(port) };
  const child = runTs(entry, { ...stack.serviceEnv, ...portEnv, OPS_PORT: String(opsPort), LOG_LEVEL: "info", ...env });
  children.push(child);
  await child.waitForOutput(started, 120_000);
  return { child, port, opsPort };
}

const balanced = (replicas: Replica[]) => `ipv4:${replicas.map((r) => `127.0.0.1:${r.port}`).join(",")}`;
let edges: Replica[];
let orders: Replica[];
let dispatchers: Replica[];

beforeAll(async () => {
  stack = await startStack({
    extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: "100ms,200ms,400ms,800ms", CONSUMER_ACK_WAIT_MS: String(ACK_WAIT_MS) },
  });
  // The in-process orders, dispatcher and edge give way to two processes each.
  await stack.edge.stop();
  await stack.orders.stop();
  await stack.dispatcher.stop();
  orders = await Promise.all([0, 1].map(() => startReplica("services/orders/main.ts", /"msg":"orders started"/, {})));
  dispatchers = await Promise.all([0, 1].map(() => startReplica("services/dispatcher/main.ts", /"msg":"dispatcher started"/, {})));
  const edgeEnv = { ORDERS_GRPC_URL: balanced(orders), DISPATCHER_GRPC_URL: balanced(dispatchers), RATE_LIMIT_STORE: "nats" };
  edges = await Promise.all([0, 1].map(() => startReplica("services/edge/main.ts", /"msg":"edge started"/, edgeEnv)));
}, 240_000);

afterAll(async () => {
  for (const child of children) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) continue;
    child.process.kill("SIGTERM");
    await child.exited(30_000).catch(() => child.process.kill("SIGKILL"));
  }
  await receiver?.close();
  await stack?.stop();
}, 60_000);

/** Calls the API through edge `i % 2`, retrying what a killed replica left unanswered (503). */
function via(i: number): Call {
  return async (path, init = {}) => {
    for (let attempt = 0; ; attempt++) {
      const answer = await request(`http://127.0.0.1:${edges[i % 2].port}/v1${path}`, { ...init, token: stack.token });
      if (answer.status !== 503 || attempt >= 20) return answer;
      await sleep(100);
    }
  };
}

/** Every event of `kind` in the tenant's log, page by page (100 at most per page). */
async function allEvents(kind: string): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  let cursor: string | null = null;
  do {
    const answer = await via(0)(`/events?kind=${kind}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    out.push(...answer.body.data);
    cursor = answer.body.nextCursor;
  } while (cursor);
  return out;
}

async function eventsCounted(replica: Replica): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.opsPort}/metrics`)).text();
  return [...text.matchAll(/^waybill_dispatcher_events_received_total\{[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

describe("two replicas of orders, dispatcher and edge", () => {
  it("share the load, and losing one replica of each mid-load loses no event", async () => {
    receiver = await startReceiver(async () => {
      await sleep(50);
      return { status: 200 };
    });
    const customerId = await createCustomer(via(0));
    const productId = await createStockedProduct(via(0), 0);
    const hook = await via(1)("/hooks", { json: { name: "replicas", url: receiver.url, on: "order.created" } });
    expect(hook.status).toBe(201);

    let created = 0;
    const unexpected: string[] = [];
    let next = 0;
    const createOne = async () => {
      const i = next++;
      const answer = await via(i)("/orders", {
        json: { shortId: `REP-${i}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "1.00" }] },
      });
      // 409: the killed replica had stored this shortId before it could answer; the retry met it.
      if (answer.status === 201 || answer.status === 409) created++;
      else unexpected.push(`${answer.status} ${JSON.stringify(answer.body)}`);
    };
    // Four clients at a time, spread over both edges; the kill lands while they run and while
    // deliveries to the (slow) receiver are in flight.
    const worker = async () => {
      while (next < ORDERS_TOTAL) await createOne();
    };
    let receivedAtKill = 0;
    let before: number[] = [];
    const killer = (async () => {
      await eventually(async () => (next >= KILL_AFTER && receiver.received.length >= 3 ? true : undefined), 60_000, 10);
      // Both dispatchers took events from the shared consumer before the kill.
      before = await Promise.all(dispatchers.map(eventsCounted));
      orders[0].child.process.kill("SIGKILL");
      dispatchers[0].child.process.kill("SIGKILL");
      receivedAtKill = receiver.received.length;
    })();
    await Promise.all([worker(), worker(), worker(), worker(), killer]);
    expect(await orders[0].child.exited(10_000)).toBeNull(); // killed, not exited
    expect(await dispatchers[0].child.exited(10_000)).toBeNull();
    expect(receivedAtKill).toBeLessThan(next); // deliveries were still to come at the kill
    // Every create either answered 201 or, when it met the killed replica, was retried.
    expect(unexpected).toEqual([]);
    expect(created).toBeGreaterThanOrEqual(ORDERS_TOTAL);

    // What exists is what must arrive: every order.created event (including one whose answer
    // the kill swallowed) reaches the hook at least once.
    const events = await eventually(
      async () => {
        const all = await allEvents("order.created");
        return all.length >= created ? all : undefined;
      },
      30_000,
      200,
    );
    const expected = new Set<string>(events.map((e) => e.id));
    await eventually(
      async () => {
        const got = new Set(receiver.received.map((r) => r.json.id));
        return [...expected].every((id) => got.has(id)) ? true : undefined;
      },
      90_000,
      100,
    );
    expect(new Set(receiver.received.map((r) => r.json.id))).toEqual(expected);
    expect(
      before.every((n) => n > 0),
      `events taken per dispatcher before the kill: ${before}`,
    ).toBe(true);
  }, 240_000);

  it("rate limits hold across the two edge replicas (shared NATS KV counts)", async () => {
    // A fresh token with a small budget would need a restart; instead both edges' answers must
    // count down one shared RateLimit-Remaining for the stack's token.
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await request(`http://127.0.0.1:${edges[i % 2].port}/v1/products`, { token: stack.token });
      expect(answer.status).toBe(200);
      remaining.push(Number(answer.headers.get("ratelimit-remaining")));
    }
    for (let i = 1; i < remaining.length; i++) expect(remaining[i]).toBe(remaining[i - 1] - 1);
  });
});
