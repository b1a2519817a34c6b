// ensureStreams on the real NATS server: streams get the configured replica count, and a restart
// does not reset what an operator changed on an existing stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nanos } from "@nats-io/transport-node";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, ensureStreams, type Bus } from "@waybill/platform/nats.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { DELIVERIES_STREAM, deliveriesStreamName } from "../services/dispatcher/deliveries-stream.js";
import { REVOCATIONS_STREAM } from "@waybill/contracts/identity/revocations.js";

let env: TestEnvironment;
let bus: Bus;
const logger = createLogger("stream-replicas-test", "silent");

beforeAll(async () => {
  env = await createTestEnvironment();
  bus = await connectBus({ url: env.natsUrl, name: "stream-replicas-test", topology: env.topology, logger, streams: [DELIVERIES_STREAM, REVOCATIONS_STREAM] });
});
afterAll(async () => {
  await bus?.close();
  await env.cleanup();
});

describe("ensureStreams", () => {
  it("creates every stream with NATS_STREAM_REPLICAS copies and keeps an operator's changes on restart", async () => {
    await ensureStreams(bus, logger, 1);
    // The shared streams, and those the bus's service declared as its own.
    const names = [env.topology.eventsStream, env.topology.ingressStream, deliveriesStreamName(env.topology), env.topology.streamName("REVOCATIONS")];
    for (const name of names) expect((await bus.jsm.streams.info(name)).config.num_replicas).toBe(1);

    // An operator shortens EVENTS' retention and caps its size, and adds a subject.
    const events = (await bus.jsm.streams.info(env.topology.eventsStream)).config;
    await bus.jsm.streams.update(env.topology.eventsStream, {
      ...events,
      max_age: nanos(3_600_000),
      max_bytes: 1 << 30,
      subjects: [...events.subjects, `${env.streamPrefix.toLowerCase()}audit.>`],
    });

    await ensureStreams(bus, logger, 1); // a service restarts
    const after = (await bus.jsm.streams.info(env.topology.eventsStream)).config;
    expect(after.max_age).toBe(nanos(3_600_000));
    expect(after.max_bytes).toBe(1 << 30);
    expect(after.subjects).toContain(`${env.streamPrefix.toLowerCase()}audit.>`);
    expect(after.num_replicas).toBe(1);
  });

  it("puts back a subject Waybill publishes to when it was removed", async () => {
    const ingress = (await bus.jsm.streams.info(env.topology.ingressStream)).config;
    await bus.jsm.streams.update(env.topology.ingressStream, { ...ingress, subjects: [`elsewhere.${env.streamPrefix}`] });
    await ensureStreams(bus, logger, 1);
    expect((await bus.jsm.streams.info(env.topology.ingressStream)).config.subjects).toContain(env.topology.ingressWildcard);
  });
});
