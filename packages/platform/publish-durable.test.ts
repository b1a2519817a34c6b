import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_NATS_URL } from "./config.js";
import { createTopology, headers, publishDurable, type Bus } from "./nats.js";

const NATS_URL = process.env.NATS_URL ?? DEFAULT_NATS_URL;
const stream = `PUBDUR_${randomBytes(4).toString("hex").toUpperCase()}`;
const subject = (token: string) => `${stream.toLowerCase()}.${token}`;

let nc: NatsConnection;
let bus: Bus;

beforeAll(async () => {
  nc = await connect({ servers: NATS_URL, noAsyncTraces: true });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`], duplicate_window: 60_000_000_000 });
  bus = { nc, js: jetstream(nc), jsm, topology: createTopology(), streams: [], close: () => nc.close() };
});

afterAll(async () => {
  await bus.jsm.streams.delete(stream).catch(() => {});
  await nc.close();
});

/** Counts the socket writes nats.js makes while `work` runs. */
async function socketWrites(work: () => Promise<unknown>): Promise<number> {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
  const send = transport.send;
  let writes = 0;
  transport.send = (frame) => {
    writes++;
    send.call(transport, frame);
  };
  try {
    await work();
  } finally {
    transport.send = send;
  }
  return writes;
}

describe("publishDurable", () => {
  it("resolves once the stream stored the message, with its sequence, and drops a copy under the same id", async () => {
    const h = headers();
    h.set("tenantId", "ten_a");
    const first = await publishDurable(bus, subject("a"), "one", { msgId: "m-1", headers: h });
    const again = await publishDurable(bus, subject("a"), "one", { msgId: "m-1" });
    expect(first.duplicate).toBe(false);
    expect(again).toMatchObject({ duplicate: true, seq: first.seq });
    const stored = await bus.jsm.streams.getMessage(stream, { seq: first.seq });
    expect(stored?.string()).toBe("one");
    expect(stored?.header.get("Nats-Msg-Id")).toBe("m-1");
    expect(stored?.header.get("tenantId")).toBe("ten_a");
  });

  it("sends the publishes of one turn of the event loop in one socket write, in order", async () => {
    const writes = await socketWrites(async () => {
      const publishes = [publishDurable(bus, subject("b"), "1", { msgId: "b-1" })];
      await Promise.resolve();
      publishes.push(publishDurable(bus, subject("b"), "2", { msgId: "b-2" }));
      await Promise.resolve();
      publishes.push(publishDurable(bus, subject("b"), "3", { msgId: "b-3" }));
      const acks = await Promise.all(publishes);
      expect(acks.map((a) => a.seq)).toEqual([acks[0].seq, acks[0].seq + 1, acks[0].seq + 2]);
    });
    expect(writes).toBe(1);
  });

  it("keeps thousands of publishes awaiting their answers at once", async () => {
    const acks = await Promise.all(Array.from({ length: 3_000 }, (_, i) => publishDurable(bus, subject("many"), String(i), { msgId: `many-${i}` })));
    expect(new Set(acks.map((a) => a.seq)).size).toBe(3_000);
    expect(acks.every((a) => !a.duplicate)).toBe(true);
  });

  it("rejects only the publish no stream stored", async () => {
    const results = await Promise.allSettled([
      publishDurable(bus, subject("c"), "1", { msgId: "c-1" }),
      publishDurable(bus, `nostream.${stream.toLowerCase()}`, "2", { msgId: "c-2" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason.message).toMatch(/no responders/);
  });

  it("rejects a publish the stream refuses with the stream's reason", async () => {
    const h = headers();
    h.set("Nats-Expected-Stream", "SOME_OTHER_STREAM");
    await expect(publishDurable(bus, subject("d"), "1", { msgId: "d-1", headers: h })).rejects.toThrow(/JetStream refused the message: .*stream/i);
  });

  it("times out a publish that gets no answer", async () => {
    // A plain subscriber takes the subject and never answers.
    const silent = `silent.${stream.toLowerCase()}`;
    const sub = nc.subscribe(silent);
    await nc.flush();
    try {
      const started = Date.now();
      await expect(publishDurable(bus, silent, "1", { msgId: "e-1", timeoutMs: 200 })).rejects.toThrow(/timeout/);
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      sub.unsubscribe();
    }
  });

  it("rejects what awaits an answer when the connection closes", async () => {
    const own = await connect({ servers: NATS_URL, noAsyncTraces: true });
    const ownBus = { ...bus, nc: own };
    const silent = `silent2.${stream.toLowerCase()}`;
    const sub = nc.subscribe(silent);
    await nc.flush();
    try {
      const pending = publishDurable(ownBus, silent, "1", { msgId: "f-1", timeoutMs: 60_000 });
      await new Promise((r) => setTimeout(r, 50));
      await own.close();
      await expect(pending).rejects.toThrow(/closed/);
    } finally {
      sub.unsubscribe();
    }
  });
});
