// GET /v1/events/stream against the real system: only the caller's tenant's events, the kind
// filter, resuming after Last-Event-ID, heartbeats, the body of each event byte for byte what a
// delivery POSTs, a paused reader that holds up nobody, and consumers released on disconnect.
import net from "node:net";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { headers as natsHeaders } from "@nats-io/transport-node";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@waybill/platform/ids.js";
import { TENANT_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { client, createCustomer, type Call } from "./orders-fixtures.js";
import { eventually, request } from "./support/http.js";
import { openSse, type SseReader } from "./support/sse.js";
import { startStack, type Stack } from "./support/stack.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { streamEvents, type StreamedEvent } from "@waybill/sdk";
import { issueToken } from "./support/tokens.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

const HEARTBEAT_MS = 300;
const DRAIN_TIMEOUT_MS = 1_500;
const STREAMS_PER_CREDENTIAL = 3;

let stack: Stack;
let a: Call;
let tokenB: string;
let b: Call;
let tenantA: string;
let nc: NatsConnection;
let jsm: JetStreamManager;
const readers: SseReader[] = [];
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  stack = await startStack({
    extraEnv: {
      ...LOOPBACK_RECEIVERS,
      EVENT_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
      EVENT_STREAM_DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
      EVENT_STREAMS_PER_CREDENTIAL: String(STREAMS_PER_CREDENTIAL),
    },
  });
  a = client(stack);
  const db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  tenantA = (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
  const tenantB = newId("ten");
  await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, 'tenant-b')", [tenantB]);
  await db.end();
  tokenB = (await issueToken(stack.env.databaseUrl, "api", { tenantId: tenantB })).token;
  b = client(stack, tokenB);
  nc = await connect({ servers: stack.env.natsUrl });
  jsm = await jetstreamManager(nc);
});

afterAll(async () => {
  for (const reader of readers) reader.close();
  await Promise.all(receivers.map((r) => r.close()));
  await nc?.close();
  await stack?.stop();
});

async function stream(options: { token?: string; kind?: string; lastEventId?: string } = {}): Promise<SseReader> {
  const reader = await openSse(stack.baseUrl, { token: stack.token, ...options });
  readers.push(reader);
  return reader;
}

/** Ephemeral consumers on the stack's EVENTS stream (the dispatcher's durable one excluded). */
async function streamConsumers(): Promise<number> {
  let count = 0;
  // A consumer deleted while the server pages the list comes back as null.
  for await (const info of jsm.consumers.list(stack.env.topology.eventsStream)) if (info && !info.config.durable_name) count += 1;
  return count;
}

const customerEvent = (reader: SseReader, customerId: string) => reader.events.find((e) => e.json.customerId === customerId);

describe("GET /v1/events/stream", () => {
  it("refuses a request without a credential (401) and malformed filters or Last-Event-ID (400)", async () => {
    const anonymous = await openSse(stack.baseUrl);
    expect(anonymous.status).toBe(401);
    expect(anonymous.problem).toMatchObject({ status: 401, code: "missing_credentials" });
    const unknownKind = await stream({ kind: "order.created,order.exploded" });
    expect(unknownKind.status).toBe(400);
    expect(unknownKind.problem.code).toBe("invalid_query");
    expect(unknownKind.problem.errors[0]).toMatchObject({ path: "kind" });
    expect(unknownKind.problem.errors[0].message).toContain("order.exploded");
    const badId = await stream({ lastEventId: "not-an-event" });
    expect(badId.status).toBe(400);
    expect(badId.problem.code).toBe("invalid_last_event_id");
    const head = await fetch(`${stack.baseUrl}/events/stream`, { method: "HEAD", headers: { authorization: `Bearer ${stack.token}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stack.edge.openEventStreams()).toBe(0);
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const refused = await stream({ token: sensor.token });
    expect(refused.status).toBe(403);
  });

  it("streams only the caller's tenant's events, each with the body a delivery carries, and heartbeats", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    await createHook(a, { url: receiver.url, on: "customer.created" });
    const readerA = await stream();
    const readerB = await stream({ token: tokenB });
    expect(readerA.status).toBe(200);
    expect(readerA.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");

    const customerB = await createCustomer(b);
    const customerA = await createCustomer(a);
    const seenByA = await eventually(async () => customerEvent(readerA, customerA));
    await eventually(async () => customerEvent(readerB, customerB));
    // B's event was stored before A's, and each reader gets the stream in order: had it leaked, it would be here.
    expect(customerEvent(readerA, customerB)).toBeUndefined();
    expect(customerEvent(readerB, customerA)).toBeUndefined();
    expect(readerA.events.every((e) => e.json.customerId !== customerB)).toBe(true);

    expect(seenByA).toMatchObject({ id: seenByA.json.id, event: "customer.created" });
    expect(seenByA.id).toMatch(/^evt_/);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery.json.customerId).toBe(customerA);
    expect(seenByA.data).toBe(delivery.rawBody);

    await eventually(async () => (readerA.comments.filter((c) => c === "heartbeat").length >= 2 ? true : undefined), 5_000);
    readerA.close();
    readerB.close();
  });

  it("filters by one kind or a comma list", async () => {
    const one = await stream({ kind: "customer.created" });
    const two = await stream({ kind: "product.created,customer.created" });
    const product = await a("/products", { json: { sku: `SKU-${Date.now()}`, name: "Filtered" } });
    expect(product.status).toBe(201);
    const adjusted = await a("/inventory/adjustments", { json: { productId: product.body.id, delta: 3, reason: "count" } });
    expect(adjusted.status).toBe(201);
    const customer = await createCustomer(a);
    await eventually(async () => customerEvent(one, customer));
    await eventually(async () => customerEvent(two, customer));
    // The customer came last: everything before it has arrived.
    expect(one.events.map((e) => e.event)).toEqual(["customer.created"]);
    expect(two.events.map((e) => e.event)).toEqual(["product.created", "customer.created"]);
    expect(two.events[0].json.productId).toBe(product.body.id);
    one.close();
    two.close();
  });

  it("resumes strictly after Last-Event-ID, in order, including what happened while disconnected", async () => {
    const first = await stream({ kind: "customer.created" });
    const before = [await createCustomer(a), await createCustomer(a), await createCustomer(a)];
    await first.waitFor(3);
    expect(first.events.map((e) => e.json.customerId)).toEqual(before);
    first.close();
    const during = [await createCustomer(a), await createCustomer(a)];

    const resumed = await stream({ kind: "customer.created", lastEventId: first.events[1].id });
    const events = await resumed.waitFor(3);
    expect(events.map((e) => e.json.customerId)).toEqual([before[2], ...during]);
    const live = await createCustomer(a);
    await eventually(async () => customerEvent(resumed, live));
    expect(resumed.events.map((e) => e.json.customerId)).toEqual([before[2], ...during, live]);
    resumed.close();

    // Resuming after the newest event gives nothing old, only what comes next.
    const fromLast = await stream({ kind: "customer.created", lastEventId: resumed.events.at(-1)!.id });
    const next = await createCustomer(a);
    await eventually(async () => customerEvent(fromLast, next));
    expect(fromLast.events.map((e) => e.json.customerId)).toEqual([next]);
    fromLast.close();
  });

  it("drops a reader that stops reading, without holding up other readers or ordinary requests", async () => {
    await eventually(async () => (stack.edge.openEventStreams() === 0 ? true : undefined));
    const normal = await stream({ kind: "device.reading" });
    // A reader that sends its request, reads the answer's head, then never reads again.
    const slow = net.connect(stack.edge.port, "127.0.0.1");
    await new Promise<void>((resolve) => slow.once("connect", resolve));
    slow.write(
      `GET /v1/events/stream?kind=device.reading HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stack.token}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    const head = await new Promise<string>((resolve) => slow.once("data", (chunk: Buffer) => resolve(chunk.toString())));
    expect(head).toMatch(/^HTTP\/1.1 200/);
    slow.pause();
    let slowClosed = false;
    slow.on("close", () => (slowClosed = true));
    slow.on("error", () => {});
    expect(stack.edge.openEventStreams()).toBe(2);
    // A paused socket does not notice being closed; the edge's count of open streams does.
    const slowDropped = () => stack.edge.openEventStreams() === 1;

    // Large readings straight onto the tenant's subject, until the paused reader's buffers are full.
    const js = jetstream(nc);
    const reading = { blob: "x".repeat(128 * 1024) };
    let published = 0;
    const publishSome = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        const id = newId("evt");
        const h = natsHeaders();
        h.set(TENANT_ID_NATS_HEADER, tenantA);
        const event = {
          id,
          kind: "device.reading",
          time: new Date().toISOString(),
          transactionId: newId("txn"),
          deviceId: "dev-slow",
          reading,
          receivedAt: new Date().toISOString(),
        };
        await js.publish(stack.env.topology.eventSubject(tenantA, "device.reading"), JSON.stringify(event), { msgID: id, headers: h });
        published += 1;
      }
    };
    while (!slowDropped() && published < 400) {
      await publishSome(20);
      // The reader that reads keeps up, and the API answers, while the other one is stuck.
      await normal.waitFor(published);
      expect((await a("/customers?limit=1")).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
    }
    await eventually(async () => (slowDropped() ? true : undefined), DRAIN_TIMEOUT_MS * 4);
    expect(published).toBeLessThan(400);
    expect(normal.events).toHaveLength(published);
    const metrics = await (await fetch(`http://127.0.0.1:${stack.edge.opsPort}/metrics`)).text();
    expect(metrics).toMatch(/^waybill_edge_event_stream_readers_dropped_total\{service="edge"\} 1$/m);
    expect(metrics).toMatch(/^waybill_edge_event_streams_open\{service="edge"\} 1$/m);
    // Once it reads again, it finds its connection closed by the edge.
    slow.resume();
    await eventually(async () => (slowClosed ? true : undefined));
    normal.close();
  });

  it("through the SDK's reader: a link that goes silent is replaced, and the reader resumes with what it missed", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: stack.edge.port });
    const statuses: { state: string; error?: unknown }[] = [];
    const received: StreamedEvent[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      const events = streamEvents({
        baseUrl: `http://${proxy.address}`,
        token: stack.token,
        kinds: ["customer.created"],
        idleTimeoutMs: HEARTBEAT_MS * 4,
        signal: stop.signal,
        onStatus: (s) => statuses.push(s),
      });
      for await (const event of events) received.push(event);
    })();
    try {
      await eventually(async () => (statuses.some((s) => s.state === "open") ? true : undefined));
      const first = await createCustomer(a);
      await eventually(async () => received.find((e) => e.event.customerId === first));
      // Half-open: the connection stays up but carries nothing, not even heartbeats.
      proxy.blackhole();
      const missed = await createCustomer(a);
      await eventually(async () =>
        statuses.some((s) => s.state === "dropped" && String((s.error as Error)?.message).includes("nothing received")) ? true : undefined,
      );
      proxy.restore();
      await eventually(async () => received.find((e) => e.event.customerId === missed));
      expect(received.map((e) => e.event.customerId)).toEqual([first, missed]);
    } finally {
      stop.abort();
      await reading;
      await proxy.stop();
    }
  });

  it("releases the reader's consumer when it disconnects, and limits streams per credential", async () => {
    await eventually(async () => ((await streamConsumers()) === 0 && stack.edge.openEventStreams() === 0 ? true : undefined));
    const open = [await stream(), await stream(), await stream()];
    expect(await streamConsumers()).toBe(3);
    const refused = await stream();
    expect(refused.status).toBe(429);
    expect(refused.problem.code).toBe("too_many_streams");
    // Another credential is not affected.
    const other = await stream({ token: tokenB });
    expect(other.status).toBe(200);

    open[0].close();
    await eventually(async () => ((await streamConsumers()) === 3 ? true : undefined));
    const again = await stream();
    expect(again.status).toBe(200);
    for (const reader of [...open, other, again]) reader.close();
    await eventually(async () => ((await streamConsumers()) === 0 && stack.edge.openEventStreams() === 0 ? true : undefined));
    // Ordinary requests still answer after all that.
    expect((await request(`${stack.baseUrl}/event-kinds`, { token: stack.token })).status).toBe(200);
  });
});
