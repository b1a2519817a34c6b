// Durable JetStream publishes awaiting the stream's acknowledgement on one reply inbox per
// connection. nats.js's js.publish makes each publish a request: an async function, its options
// copied, a request object with its own timer, a deferred, the inbox table entry and an Error
// built in case it fails, about a fifth of the MQTT gateway's CPU per device message (it
// publishes twice per reading: INGRESS, then the reading's event). Here a publish is one plain
// publish with a reply subject, one table entry and one promise, and one sweep a second times
// out what got no answer.
import { createInbox, errors, headers as newHeaders, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import { StringKeyMap } from "./string-key-map.js";

export interface PublishAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

export interface AckedPublish {
  subject: string;
  data: Uint8Array | string;
  msgId: string;
  headers?: MsgHdrs;
  timeoutMs: number;
  resolve(ack: PublishAck): void;
  reject(error: Error): void;
}

interface Awaiting {
  publish: AckedPublish;
  deadline: number;
}

const MSG_ID_HEADER = "Nats-Msg-Id";
const NO_RESPONDERS = 503;
const SWEEP_INTERVAL_MS = 1_000;

export interface AckInbox {
  /** Publishes with a reply subject of this inbox; `publish` is settled by the stream's answer, a timeout or the connection's close. */
  send(publish: AckedPublish): void;
}

const inboxes = new WeakMap<NatsConnection, AckInbox>();

/** The connection's ack inbox, subscribed at its first use. */
export function ackInboxOf(nc: NatsConnection): AckInbox {
  let inbox = inboxes.get(nc);
  if (!inbox) {
    inbox = createAckInbox(nc);
    inboxes.set(nc, inbox);
  }
  return inbox;
}

function createAckInbox(nc: NatsConnection): AckInbox {
  const prefix = `${createInbox()}.`;
  // A dictionary object, not a Map: entries come and go for the connection's whole life (string-key-map.ts).
  const awaiting = new StringKeyMap<Awaiting>();
  let next = 0;

  const settle = (token: string, message: Msg) => {
    const entry = awaiting.get(token);
    if (!entry) return; // timed out already
    awaiting.delete(token);
    const { publish } = entry;
    if (message.data.length === 0 && message.headers?.code === NO_RESPONDERS) {
      publish.reject(new errors.NoRespondersError(publish.subject));
      return;
    }
    let answer: { stream?: string; seq?: number; duplicate?: boolean; error?: { code?: number; err_code?: number; description?: string } };
    try {
      answer = message.json();
    } catch {
      publish.reject(new Error(`JetStream answered a publish to ${publish.subject} with something that is not JSON`));
      return;
    }
    if (answer.error || !answer.stream) {
      const error = answer.error;
      publish.reject(new Error(error ? `JetStream refused the message: ${error.description} (${error.err_code ?? error.code})` : "invalid ack response"));
      return;
    }
    publish.resolve({ stream: answer.stream, seq: answer.seq ?? 0, duplicate: answer.duplicate === true });
  };

  nc.subscribe(`${prefix}*`, {
    callback: (error, message) => {
      if (error) return; // the subscription ends with the connection: the close below rejects what waits
      settle(message.subject.slice(prefix.length), message);
    },
  });

  const sweep = setInterval(() => {
    if (awaiting.size === 0) return;
    const now = Date.now();
    awaiting.forEach((entry, token) => {
      if (entry.deadline > now) return;
      awaiting.delete(token);
      entry.publish.reject(new errors.TimeoutError());
    });
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  void nc.closed().then(() => {
    clearInterval(sweep);
    awaiting.forEach((entry, token) => {
      awaiting.delete(token);
      entry.publish.reject(new errors.ClosedConnectionError());
    });
  });

  return {
    send(publish) {
      const token = (next++).toString(36);
      const h = publish.headers ?? newHeaders();
      h.set(MSG_ID_HEADER, publish.msgId);
      try {
        nc.publish(publish.subject, publish.data, { reply: prefix + token, headers: h });
      } catch (error) {
        publish.reject(error as Error);
        return;
      }
      awaiting.set(token, { publish, deadline: Date.now() + publish.timeoutMs });
    },
  };
}
