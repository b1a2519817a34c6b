// Acknowledgements of messages finished within one turn of the event loop, sent together. A
// consumer's handlers finish one microtask after another (a batched statement resolves them all
// at once), and nats.js writes what is pending after each of them: one socket write (a system
// call) per ack, on every event. Held until the turn ends, they leave in one
// write. A crash before that turn ends loses the acks, and JetStream redelivers those messages,
// as it would any message whose ack was lost.
import type { JsMsg } from "@nats-io/jetstream";

export interface AckCoalescer {
  ack(message: JsMsg): void;
  /** Sends what is held now (before the connection drains at shutdown). */
  flush(): void;
}

export function createAckCoalescer(): AckCoalescer {
  let held: JsMsg[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = () => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    const messages = held;
    held = [];
    for (const message of messages) message.ack();
  };
  return {
    ack(message) {
      held.push(message);
      scheduled ??= setImmediate(flush);
    },
    flush,
  };
}
