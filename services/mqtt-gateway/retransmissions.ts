// The stored id (Nats-Msg-Id) of a QoS 1 publish, kept until the device surely has its PUBACK,
// so that a retransmission after a lost or withheld PUBACK is stored under the same id and the
// stream drops the copy. MQTT 3.1.1 (4.4) makes a client with a persistent session resend
// unacknowledged publishes with the same packet id; a clean-session client (or one that comes
// back on another gateway replica) gets a fresh id, so storing is at-least-once and
// consumers are idempotent.
import { createHash } from "node:crypto";
import { newUlid } from "@waybill/platform/ids.js";
import { DUPLICATE_WINDOW_MS } from "@waybill/platform/nats.js";

const MAX_REMEMBERED = 100_000;

export interface RetransmissionKey {
  /** The broker-internal (tenant-scoped) client id. */
  clientId: string;
  packetId: number;
  topic: string;
  payload: string | Buffer;
}

export interface Retransmissions {
  /** The message id to store this publish under: the earlier attempt's when it is a resend. */
  messageIdFor(key: RetransmissionKey, resend: boolean): string;
  /** The PUBACK went out on a live connection: the packet id may now carry a new message. */
  acknowledged(key: RetransmissionKey): void;
  /** The attempt ended without its PUBACK reaching the device: kept for the resend that follows. */
  unacknowledged(key: RetransmissionKey): void;
}

interface Attempt {
  messageId: string;
  topic: string;
  /** The payload while the attempt is in flight (held by its packet anyway), compared byte for byte. */
  payload?: string | Buffer;
  /** Its digest once the attempt ended unacknowledged, so that no payload is kept for the resend. */
  digest?: string;
  at: number;
}

export function createRetransmissions(now: () => number = Date.now): Retransmissions {
  // In insertion order, which is time order: the oldest attempts are the first to go. Hashing
  // every payload up front (and an LRU with a timer per entry) was ~4 % of the gateway's CPU per
  // message; only an attempt that ends without PUBACK is hashed now.
  const attempts = new Map<string, Attempt>();
  const slot = (key: RetransmissionKey) => `${key.clientId}\u0000${key.packetId}`;
  // A different message under a reused packet id must never be taken for a resend (it would be
  // deduplicated away), so the topic and payload must match too.
  const digestOf = (topic: string, payload: string | Buffer) => createHash("sha256").update(topic).update("\u0000").update(payload).digest("base64");
  const bytesOf = (payload: string | Buffer) => (typeof payload === "string" ? Buffer.from(payload) : payload);
  const samePayload = (earlier: Attempt, payload: string | Buffer) =>
    earlier.payload !== undefined ? bytesOf(earlier.payload).equals(bytesOf(payload)) : earlier.digest === digestOf(earlier.topic, payload);
  // Entries older than the stream's duplicate window would not be deduplicated anyway.
  const forgetOld = (at: number) => {
    for (const [key, attempt] of attempts) {
      if (attempts.size <= MAX_REMEMBERED && attempt.at > at - DUPLICATE_WINDOW_MS) return;
      attempts.delete(key);
    }
  };
  return {
    messageIdFor(key, resend) {
      const at = now();
      const id = slot(key);
      const earlier = attempts.get(id);
      let messageId: string | undefined;
      if (earlier) {
        attempts.delete(id);
        if (resend && earlier.at > at - DUPLICATE_WINDOW_MS && earlier.topic === key.topic && samePayload(earlier, key.payload)) messageId = earlier.messageId;
      }
      messageId ??= `dm-${newUlid()}`;
      attempts.set(id, { messageId, topic: key.topic, payload: key.payload, at });
      forgetOld(at);
      return messageId;
    },
    acknowledged(key) {
      attempts.delete(slot(key));
    },
    unacknowledged(key) {
      const attempt = attempts.get(slot(key));
      if (!attempt || attempt.payload === undefined) return;
      attempt.digest = digestOf(attempt.topic, attempt.payload);
      attempt.payload = undefined;
    },
  };
}
