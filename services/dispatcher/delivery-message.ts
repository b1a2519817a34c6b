// The messages of the DELIVERIES stream: one per hook × event (Nats-Msg-Id = "<eventId>:<hookId>",
// so a re-published fan-out is deduplicated), plus one per manual re-delivery. The event travels
// as the exact JSON text the dispatcher received, which is the body receivers get and verify.
import { z } from "zod";
import { newId } from "@waybill/platform/ids.js";

export const deliveryMessage = z.object({
  /** Names this delivery; its attempts and executions share it. Also its Nats-Msg-Id. */
  deliveryId: z.string().min(1),
  tenantId: z.string().min(1),
  hookId: z.string().min(1),
  trigger: z.enum(["event", "manual", "recover"]),
  eventId: z.string().min(1),
  eventKind: z.string().min(1),
  /** The event's `time` (fan-out sets it, so it need not be parsed out of eventJson). */
  eventTime: z.string().nullish(),
  eventJson: z.string().min(2),
  /** Set for a hook with per-entity ordering: the entity's queue it waits in (ordered-deliveries.ts). */
  entity: z.string().nullish(),
  /** With `entity`: the event's position in EVENTS, which orders events of the same time. */
  streamSeq: z.number().int().nonnegative().nullish(),
});

export type DeliveryMessage = z.infer<typeof deliveryMessage>;

/** The fan-out delivery of an event to a hook. */
export function fanOutDeliveryId(eventId: string, hookId: string): string {
  return `${eventId}:${hookId}`;
}

/** A manual re-delivery: a new delivery each time it is asked for. */
export function manualDeliveryId(eventId: string, hookId: string): string {
  return `${eventId}:${hookId}:manual:${newId("req").slice(4)}`;
}

/**
 * A recovery's delivery of an event: one per event and hook, so recovering the same window again
 * while the first is still queued publishes nothing new (the outbox and JetStream drop the copy).
 */
export function recoverDeliveryId(eventId: string, hookId: string): string {
  return `${eventId}:${hookId}:recover`;
}

export function parseDeliveryMessage(data: string): DeliveryMessage {
  return deliveryMessage.parse(JSON.parse(data));
}
