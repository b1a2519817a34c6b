// Events derived from a stored message (a device reading in INGRESS) are published straight to
// EVENTS with an id made from that message: handling the message twice publishes one event. An
// event that is the stored form of a message (a device reading the gateway stores as its event)
// is deduplicated by the message's id: a resend that arrives later is stored once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishDerivedEvent, publishEventOfMessage } from "@waybill/contracts/events/derived-events.js";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, ensureStreams, TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import { readStream } from "./support/bus.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

let env: TestEnvironment;
let bus: Bus;
beforeAll(async () => {
  env = await createTestEnvironment();
  bus = await connectBus({ url: env.natsUrl, name: "derived-events-test", topology: env.topology, logger: createLogger("derived-events-test", "silent") });
  await ensureStreams(bus, createLogger("derived-events-test", "silent"));
});
afterAll(async () => {
  await bus?.close();
  await env?.cleanup();
});

describe("publishDerivedEvent", () => {
  it("publishes the same event, once, for the same source message; another message makes another event", async () => {
    const event = {
      tenantId: "ten_derived",
      kind: "device.reading" as const,
      payload: { deviceId: "dev-1", reading: { t: 4.5 }, receivedAt: "2026-11-24T10:00:00.000Z" },
      transactionId: "txn_derived",
    };
    const source = { id: "INGRESS:msg-1", time: "2026-11-24T10:00:00.000Z" };
    const first = await publishDerivedEvent(bus, event, source);
    const again = await publishDerivedEvent(bus, event, source);
    expect(again).toEqual(first);
    expect(first).toMatchObject({ kind: "device.reading", time: source.time, transactionId: "txn_derived", deviceId: "dev-1", reading: { t: 4.5 } });
    const other = await publishDerivedEvent(bus, event, { ...source, id: "INGRESS:msg-2" });
    expect(other.id).not.toBe(first.id);

    const stored = await readStream(env.natsUrl, env.topology.eventsStream);
    expect(stored.map((m) => m.json.id).sort()).toEqual([first.id, other.id].sort());
    expect(stored.find((m) => m.json.id === first.id)?.headers).toMatchObject({
      [TENANT_ID_NATS_HEADER]: "ten_derived",
      [TRANSACTION_ID_NATS_HEADER]: "txn_derived",
    });
  });

  it("refuses a payload the catalog does not allow, publishing nothing", async () => {
    await expect(
      publishDerivedEvent(
        bus,
        { tenantId: "ten_derived", kind: "device.reading", payload: { deviceId: 5 } as never },
        { id: "INGRESS:bad", time: "2026-11-24T10:00:00.000Z" },
      ),
    ).rejects.toThrow();
  });
});

describe("publishEventOfMessage", () => {
  it("stores one event for a message and its resend at a later time; another message makes another", async () => {
    const reading = (receivedAt: string) => ({
      tenantId: "ten_message",
      kind: "device.reading" as const,
      payload: { deviceId: "dev-2", reading: { t: 1 }, receivedAt },
    });
    const first = await publishEventOfMessage(bus, reading("2026-11-27T05:00:00.000Z"), { msgId: "dm-1", time: "2026-11-27T05:00:00.000Z" });
    const resend = await publishEventOfMessage(bus, reading("2026-11-27T05:00:03.000Z"), { msgId: "dm-1", time: "2026-11-27T05:00:03.000Z" });
    const other = await publishEventOfMessage(bus, reading("2026-11-27T05:00:04.000Z"), { msgId: "dm-2", time: "2026-11-27T05:00:04.000Z" });
    expect(first).toMatchObject({ kind: "device.reading", time: "2026-11-27T05:00:00.000Z", deviceId: "dev-2", reading: { t: 1 } });
    const stored = (await readStream(env.natsUrl, env.topology.eventsStream)).filter((m) => m.json.deviceId === "dev-2");
    // The resend was dropped by the stream: what is stored is the first attempt, and the other message.
    expect(stored.map((m) => [m.headers["Nats-Msg-Id"], m.json.id])).toEqual([
      ["dm-1", first.id],
      ["dm-2", other.id],
    ]);
    expect(resend.id).not.toBe(first.id);
  });
});
