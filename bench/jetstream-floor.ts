// The cost of the queue a webhook delivery must cross, alone: JetStream publish (with
// Nats-Msg-Id, acknowledged) + consume + ack of one message, with nothing else done per message.
// Every delivery is one DELIVERIES message, so no dispatcher can deliver faster than this loop
// runs on the same machine; the webhooks benchmark prints it as the ceiling of its ratio.
import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

export async function measureQueueRoundTrip(
  nc: NatsConnection,
  options: { streamName: string; messages: number; body: string; inFlight?: number },
): Promise<number> {
  const { streamName, messages, body } = options;
  const subject = `${streamName.toLowerCase()}.floor`;
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams.add({ name: streamName, subjects: [subject] });
  try {
    await jsm.consumers.add(streamName, { durable_name: "floor", ack_policy: AckPolicy.Explicit, max_ack_pending: 1_000 });
    const consumer = await js.consumers.get(streamName, "floor");
    const started = performance.now();
    const stream = await consumer.consume({ max_messages: 100 });
    let received = 0;
    const consumed = (async () => {
      for await (const message of stream) {
        message.ack();
        if (++received >= messages) break;
      }
    })();
    const pending = new Set<Promise<unknown>>();
    for (let i = 0; i < messages; i++) {
      const p = js.publish(subject, body, { msgID: `floor-${i}` }).finally(() => pending.delete(p));
      pending.add(p);
      if (pending.size >= (options.inFlight ?? 256)) await Promise.race(pending);
    }
    await Promise.all(pending);
    await consumed;
    return messages / ((performance.now() - started) / 1000);
  } finally {
    await jsm.streams.delete(streamName);
  }
}
