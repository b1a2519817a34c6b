// Run as a child process (so NODE_EXTRA_CA_CERTS applies from the start): connects the way a
// service does, declares the streams and stores one message, then prints the outcome as JSON.
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, createTopology, ensureStreams, publishDurable } from "@waybill/platform/nats.js";

const logger = createLogger("bus-probe", "silent");
try {
  const topology = createTopology(process.env.STREAM_PREFIX ?? "");
  const bus = await connectBus({
    url: process.env.NATS_URL!,
    user: process.env.NATS_USER,
    pass: process.env.NATS_PASSWORD,
    name: "bus-probe",
    topology,
    logger,
  });
  await ensureStreams(bus, logger, 1);
  const ack = await publishDurable(bus, topology.eventSubject("t1", "probe.sent"), "{}", { msgId: "probe-1" });
  console.log(JSON.stringify({ ok: true, seq: ack.seq }));
  await bus.close();
} catch (error) {
  console.log(JSON.stringify({ ok: false, error: (error as Error).message }));
}
