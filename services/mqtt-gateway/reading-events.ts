// Telemetry (devices/<id>/telemetry, any JSON object) becomes a device.reading event and nothing
// else reads it, so the gateway stores it as that event, in EVENTS, instead of storing it in
// INGRESS for its own consumer to republish: one durable store per reading instead of two, a
// consumer delivery and an acknowledgement. Telemetry an earlier version stored in INGRESS still
// becomes its event there (readings-consumer.ts), with an id derived from the stored message.
import { publishDerivedEvent, publishEventOfMessage } from "@waybill/contracts/events/derived-events.js";
import type { NewEvent } from "@waybill/contracts/events/outbox-events.js";
import type { Bus } from "@waybill/platform/nats.js";

export interface Reading {
  tenantId: string;
  deviceId: string;
  reading: Record<string, unknown>;
  /** The stored message's id: the same id for a resend of one MQTT publish or one idempotency key. */
  messageId: string;
  receivedAt: string;
  transactionId?: string;
}

/** Stores the reading as its device.reading event; resolves once EVENTS stored it. */
export async function publishReadingEvent(bus: Bus, input: Reading): Promise<void> {
  // A resend arrives at another time: the stream drops it by the message's id (after the
  // duplicate window it is a second delivery, as at-least-once allows).
  await publishEventOfMessage(bus, readingEvent(input), { msgId: input.messageId, time: input.receivedAt });
}

/** Publishes the device.reading event of a reading an earlier gateway stored in INGRESS; the same message gives the same event. */
export async function publishStoredReadingEvent(bus: Bus, input: Reading): Promise<void> {
  await publishDerivedEvent(bus, readingEvent(input), { id: `${bus.topology.ingressStream}:${input.messageId}`, time: input.receivedAt });
}

function readingEvent(input: Reading): NewEvent {
  return {
    tenantId: input.tenantId,
    kind: "device.reading",
    payload: { deviceId: input.deviceId, reading: input.reading, receivedAt: input.receivedAt },
    transactionId: input.transactionId,
  };
}
