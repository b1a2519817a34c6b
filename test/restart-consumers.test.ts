// Every JetStream consumer across a restart of the nats-server (the test's own, file storage):
// work is produced before, during and after the server is down, and all of it is processed.
//   events intake   (dispatcher-events: order.created and device.reading reach the event log)
//   deliveries      (dispatcher-deliveries: every order.created reaches the hook)
//   device readings (mqtt-gateway: telemetry becomes device.reading events)
//   device stock    (inventory: a count becomes the product's onHand)
//   device shipments(orders: a scan moves the shipment)
//   revocations     (edge: a token revoked is refused, though it was cached)
// Three ways down: kill -9, a clean SIGTERM, and an outage longer than the consumers' ack wait;
// and every durable deleted under the running services.
// Producers keep trying while the bus is away, as devices and clients do.
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { eventually, request } from "./support/http.js";
import { startTestNats, type RestartableServer } from "./support/private-servers.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";
import { createHook, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";
import { deliveriesStreamName } from "../services/dispatcher/deliveries-stream.js";

/** Items of each kind produced per phase (before, during, after). */
const PER_PHASE = 5;
const ACK_WAIT_MS = 2_000;
const PROCESSED_WITHIN_MS = 45_000;
/** A producer gives up (and the test fails) when refused this long after it began. */
const PRODUCER_PATIENCE_MS = 40_000;

let nats: RestartableServer;
let stack: Stack;
let call: Call;
let receiver: TestReceiver;
let customerId: string;
let stockedProduct: string;
let sensorToken: string;

beforeAll(async () => {
  nats = await startTestNats();
  stack = await startStack({
    servers: { natsUrl: nats.url },
    extraEnv: {
      ...LOOPBACK_RECEIVERS,
      CONSUMER_ACK_WAIT_MS: String(ACK_WAIT_MS),
      // Only a revocation (or a gap in hearing them) may take a token out of the edge's cache.
      AUTH_CACHE_TTL_MS: "600000",
    },
  });
  call = client(stack);
  receiver = await startReceiver();
  await createHook(call, { url: receiver.url, on: "order.created" });
  customerId = await createCustomer(call);
  stockedProduct = await createStockedProduct(call, 10_000);
  sensorToken = (await issueToken(stack.env.databaseUrl, "sensor")).token;
}, 120_000);

afterAll(async () => {
  await nats?.start();
  await stack?.stop();
  await receiver?.close();
  await nats?.stop();
}, 60_000);

/** Retries `attempt` until it answers one of `ok` (a device or client riding out the outage). */
async function persist<T>(attempt: () => Promise<{ status: number; body: T }>, ok: number[], what: string): Promise<T> {
  const deadline = Date.now() + PRODUCER_PATIENCE_MS;
  for (;;) {
    const answer: { status: number; body: T | string } = await attempt().catch((error: Error) => ({ status: 0, body: error.message }));
    // A failed attempt has status 0, which no `ok` holds: a body returned here is the attempt's own.
    if (ok.includes(answer.status)) return answer.body as T;
    if (Date.now() > deadline) throw new Error(`${what}: still refused after ${PRODUCER_PATIENCE_MS} ms: ${answer.status} ${JSON.stringify(answer.body)}`);
    await sleep(200);
  }
}

interface Work {
  orders: string[];
  readings: string[];
  counts: { productId: string; onHand: number }[];
  scans: string[];
  revoked: string[];
}

/** What one phase needs prepared while the bus is up: products, shippable orders, cached tokens. */
async function prepare(n: number) {
  const products = await Promise.all(Array.from({ length: n }, () => createStockedProduct(call, 1)));
  const shipments: string[] = [];
  for (let i = 0; i < n; i++) {
    const order = await createOrder(call, customerId, [{ productId: stockedProduct, quantity: 1 }]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const shipment = await call(`/orders/${order.id}/shipments`, { json: { carrier: "GLS", trackingNumber: `TRK-${order.id}` } });
    expect(shipment.status, JSON.stringify(shipment.body)).toBe(201);
    shipments.push(shipment.body.id);
  }
  const tokens: { id: string; token: string }[] = [];
  for (let i = 0; i < n; i++) {
    const created = await call("/tokens", { json: { name: `restart ${i}`, type: "api" } });
    expect(created.status).toBe(201);
    // Used once, so the edge holds it in its cache.
    expect((await request(`${stack.baseUrl}/orders?limit=1`, { token: created.body.token })).status).toBe(200);
    tokens.push({ id: created.body.id, token: created.body.token });
  }
  return { products, shipments, tokens };
}

type Prepared = Awaited<ReturnType<typeof prepare>>;

/** Produces one item of every kind per slot of `prepared`; resolves once every producer got through. */
async function produce(prepared: Prepared, work: Work, tag: string): Promise<void> {
  const reading = (channel: string, payload: unknown) => () =>
    request(`${stack.baseUrl}/devices/restart-${tag}/readings`, { token: sensorToken, json: { channel, payload } });
  await Promise.all(
    prepared.products.map(async (productId, i) => {
      const order = await persist(
        () =>
          call("/orders", {
            json: { shortId: `R-${tag}-${i}`, customerId, currency: "EUR", orderItems: [{ productId: stockedProduct, quantity: 1, price: "1.00" }] },
          }),
        [201],
        "order",
      );
      work.orders.push(order.id);
      const marker = `${tag}-${i}`;
      await persist(reading("telemetry", { marker }), [202], "telemetry");
      work.readings.push(marker);
      const onHand = 100 + i;
      await persist(reading("inventory", { productId, onHand }), [202], "stock count");
      work.counts.push({ productId, onHand });
      const shipmentId = prepared.shipments[i];
      await persist(reading("shipments", { trackingNumber: (await call(`/shipments/${shipmentId}`)).body.trackingNumber, status: "inTransit" }), [202], "scan");
      work.scans.push(shipmentId);
      await persist(() => call(`/tokens/${prepared.tokens[i].id}`, { method: "DELETE" }), [204], "revocation");
      work.revoked.push(prepared.tokens[i].token);
    }),
  );
}

async function processedAll(work: Work): Promise<string[]> {
  const missing: string[] = [];
  const delivered = new Set(receiver.received.map((r) => r.json?.orderId));
  const undelivered = work.orders.filter((id) => !delivered.has(id));
  if (undelivered.length) missing.push(`deliveries: ${undelivered.length}`);
  const logged = new Set<string>();
  for (const kind of ["order.created", "device.reading"]) {
    let cursor = "";
    for (;;) {
      const page = await call(`/events?kind=${kind}&limit=100${cursor}`);
      if (page.status !== 200) return [`events: ${page.status}`];
      for (const event of page.body.data) logged.add(kind === "order.created" ? event.orderId : event.reading?.marker);
      if (!page.body.nextCursor) break;
      cursor = `&cursor=${page.body.nextCursor}`;
    }
  }
  const notLogged = [...work.orders, ...work.readings].filter((id) => !logged.has(id));
  if (notLogged.length) missing.push(`event log / readings: ${notLogged.length}`);
  for (const { productId, onHand } of work.counts) if ((await stockOf(call, productId)).onHand !== onHand) missing.push(`stock ${productId}`);
  for (const id of work.scans) if ((await call(`/shipments/${id}`)).body.status !== "inTransit") missing.push(`scan ${id}`);
  for (const token of work.revoked) if ((await request(`${stack.baseUrl}/orders?limit=1`, { token })).status !== 401) missing.push("revocation");
  return missing;
}

async function roundTrip(signal: NodeJS.Signals, downMs: number): Promise<void> {
  const [before, during, after] = [await prepare(PER_PHASE), await prepare(PER_PHASE), await prepare(PER_PHASE)];
  const work: Work = { orders: [], readings: [], counts: [], scans: [], revoked: [] };
  const tag = `${signal}-${downMs}`;
  // Held until all are awaited together, so that a failing producer is reported, not left unhandled.
  const producing: Promise<Error | undefined>[] = [];
  const start = (prepared: Prepared, phase: string) =>
    producing.push(
      produce(prepared, work, `${tag}-${phase}`).then(
        () => undefined,
        (error: Error) => error,
      ),
    );
  // Produced right before the server goes: some of it is in flight when it does.
  start(before, "before");
  await sleep(300);
  await nats.kill(signal);
  start(during, "during");
  await sleep(downMs);
  await nats.start();
  const backAt = Date.now();
  start(after, "after");
  const failed = (await Promise.all(producing)).find((error) => error !== undefined);
  if (failed) throw failed;
  let missing: string[] = [];
  await eventually(
    async () => {
      missing = await processedAll(work);
      return missing.length === 0 ? true : undefined;
    },
    PROCESSED_WITHIN_MS,
    500,
  ).catch(() => {});
  console.log(
    `${signal}, down ${downMs} ms: ${work.orders.length} orders, ${work.readings.length} readings, ${work.counts.length} counts, ${work.scans.length} scans, ${work.revoked.length} revocations; all processed ${Date.now() - backAt} ms after the server was back; missing: ${JSON.stringify(missing)}`,
  );
  expect(missing).toEqual([]);
  expect(work.orders).toHaveLength(3 * PER_PHASE);
}

/** Produces one round with the bus up after `disrupt`, and checks all of it is processed. */
async function roundWith(disrupt: () => Promise<void>, tag: string): Promise<void> {
  const prepared = await prepare(PER_PHASE);
  const work: Work = { orders: [], readings: [], counts: [], scans: [], revoked: [] };
  await disrupt();
  await produce(prepared, work, tag);
  let missing: string[] = [];
  await eventually(
    async () => {
      missing = await processedAll(work);
      return missing.length === 0 ? true : undefined;
    },
    PROCESSED_WITHIN_MS,
    500,
  ).catch(() => {});
  expect(missing).toEqual([]);
}

describe("every consumer across a nats-server restart", () => {
  it("processes what was produced before, during and after a kill -9", () => roundTrip("SIGKILL", 2_000), 150_000);
  it("processes what was produced before, during and after a clean SIGTERM", () => roundTrip("SIGTERM", 2_000), 150_000);
  it("processes everything after an outage longer than the ack wait", () => roundTrip("SIGKILL", 3 * ACK_WAIT_MS), 150_000);
  it("processes everything after every durable was deleted under the running services", async () => {
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const durables: [string, string][] = [];
      for (const stream of [stack.env.topology.eventsStream, stack.env.topology.ingressStream, deliveriesStreamName(stack.env.topology)]) {
        for await (const info of jsm.consumers.list(stream)) durables.push([stream, info.name]);
      }
      expect(durables.map(([, name]) => name).sort()).toEqual([
        "dispatcher-deliveries",
        "dispatcher-events",
        "gateway-device-readings",
        "inventory-device-stock",
        "orders-device-shipments",
      ]);
      await roundWith(async () => {
        for (const [stream, name] of durables) await deleteConsumer(jsm, stream, name);
      }, "deleted");
    } finally {
      await nc.close();
    }
  }, 150_000);
});

/**
 * Deletes a durable, trying again when nats-server 2.9 answers "directory not empty": it can
 * fail to remove the consumer's folder while the consumer is still writing its state there.
 */
async function deleteConsumer(jsm: Awaited<ReturnType<typeof jetstreamManager>>, stream: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await jsm.consumers.delete(stream, name);
      return;
    } catch (error) {
      if (attempt >= 5 || !String(error).includes("directory not empty")) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
