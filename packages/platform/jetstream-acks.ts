// Durable JetStream publishes awaiting the stream's acknowledgement on one reply inbox per
// connection. nats.js's js.publish makes each publish a request: an async function, its options
// copied, a request object with its own timer, a deferred, the inbox table entry and an Error
// built in case it fails, about a fifth of the MQTT gateway's CPU per device message (it
// publishes twice per reading: INGRESS, then the reading's event). Here a publish is one plain
// publish with a reply subject, one slot in a ring and one promise, and one sweep a second times
// out what got no answer.
import { createInbox, errors, headers as newHeaders, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";

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
  token: number;
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
  // Publishes awaiting their answer in a ring indexed by their token, doubled when full. A Map or
  // a dictionary object hashed a new key per publish (3 % of the gateway's busy time for the
  // dictionary's set alone) and a Map keeps its old tables alive through scavenges
  // (string-key-map.ts); a fast array does neither.
  let ring: (Awaiting | undefined)[] = new Array(1024).fill(undefined);
  let mask = ring.length - 1;
  let next = 0;

  const grow = () => {
    const old = ring;
    ring = new Array(old.length * 2).fill(undefined);
    mask = ring.length - 1;
    for (const entry of old) if (entry) ring[entry.token & mask] = entry;
  };
  const forEachAwaiting = (fn: (entry: Awaiting, index: number) => void) => {
    for (let i = 0; i < ring.length; i++) {
      const entry = ring[i];
      if (entry) fn(entry, i);
    }
  };

  const settle = (token: number, message: Msg) => {
    const entry = ring[token & mask];
    if (!entry || entry.token !== token) return; // timed out already
    ring[token & mask] = undefined;
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
      settle(Number(message.subject.slice(prefix.length)), message);
    },
  });

  const sweep = setInterval(() => {
    const now = Date.now();
    forEachAwaiting((entry, index) => {
      if (entry.deadline > now) return;
      ring[index] = undefined;
      entry.publish.reject(new errors.TimeoutError());
    });
  }, SWEEP_INTERVAL_MS);
  sweep.unref();

  void nc.closed().then(() => {
    clearInterval(sweep);
    forEachAwaiting((entry, index) => {
      ring[index] = undefined;
      entry.publish.reject(new errors.ClosedConnectionError());
    });
  });

  return {
    send(publish) {
      const token = next++;
      const h = publish.headers ?? newHeaders();
      h.set(MSG_ID_HEADER, publish.msgId);
      try {
        nc.publish(publish.subject, publish.data, { reply: prefix + token, headers: h });
      } catch (error) {
        publish.reject(error as Error);
        return;
      }
      while (ring[token & mask]) grow();
      ring[token & mask] = { publish, token, deadline: Date.now() + publish.timeoutMs };
    },
  };
}
