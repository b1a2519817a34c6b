// Reads what is in a JetStream stream, for assertions.
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";

export interface StoredMessage {
  subject: string;
  seq: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: a stored message is whatever JSON a service published; each test reads the fields of its own kind and asserts on them
  json: any;
}

export async function readStream(natsUrl: string, stream: string): Promise<StoredMessage[]> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const total = (await jsm.streams.info(stream)).state.messages;
    if (total === 0) return [];
    const consumer = await jetstream(nc).consumers.get(stream);
    const out: StoredMessage[] = [];
    const batch = await consumer.fetch({ max_messages: total, expires: 2_000 });
    for await (const m of batch) {
      const headers: Record<string, string> = {};
      for (const [key, values] of m.headers ?? []) headers[key] = values[0];
      out.push({ subject: m.subject, seq: m.seq, headers, json: m.json() });
      if (out.length === total) break;
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** A device's telemetry as the gateway stores it: its device.reading events in EVENTS (`json.reading` is what it sent). */
export async function readStoredReadings(natsUrl: string, eventsStream: string, deviceId: string): Promise<StoredMessage[]> {
  return (await readStream(natsUrl, eventsStream)).filter((m) => m.json.kind === "device.reading" && m.json.deviceId === deviceId);
}
