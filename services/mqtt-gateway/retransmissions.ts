// The stored id (Nats-Msg-Id) of a QoS 1 publish, kept until the device surely has its PUBACK,
// so that a retransmission after a lost or withheld PUBACK is stored under the same id and the
// stream drops the copy. MQTT 3.1.1 (4.4) makes a client with a persistent session resend
// unacknowledged publishes with the same packet id; a clean-session client (or one that comes
// back on another gateway replica) gets a fresh id, so delivery to INGRESS is at-least-once and
// consumers are idempotent.
import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
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
}

export function createRetransmissions(): Retransmissions {
  // Entries older than the stream's duplicate window would not be deduplicated anyway.
  const attempts = new LRUCache<string, { messageId: string; digest: string }>({ max: MAX_REMEMBERED, ttl: DUPLICATE_WINDOW_MS });
  const slot = (key: RetransmissionKey) => `${key.clientId}\u0000${key.packetId}`;
  // A different message under a reused packet id must never be taken for a resend (it would be
  // deduplicated away), so the topic and payload must match too.
  const digestOf = (key: RetransmissionKey) => createHash("sha256").update(key.topic).update("\u0000").update(key.payload).digest("base64");
  return {
    messageIdFor(key, resend) {
      const digest = digestOf(key);
      const earlier = attempts.get(slot(key));
      if (resend && earlier?.digest === digest) return earlier.messageId;
      const messageId = `dm-${newUlid()}`;
      attempts.set(slot(key), { messageId, digest });
      return messageId;
    },
    acknowledged(key) {
      attempts.delete(slot(key));
    },
  };
}
