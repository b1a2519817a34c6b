// Telemetry (devices/<id>/telemetry, any JSON object) becomes a device.reading event and nothing
// else reads it, so the gateway stores it as that event, in EVENTS, instead of storing it in
// INGRESS for its own consumer to republish: one durable store per reading instead of two, a
// consumer delivery and an acknowledgement. The event's id is derived from the stored message's
// id and its arrival, as the readings consumer derives it for telemetry that an earlier version
// stored in INGRESS, so both paths name a reading alike.
import { publishDerivedEvent } from "@waybill/contracts/events/derived-events.js";
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
  await publishDerivedEvent(
    bus,
    {
      tenantId: input.tenantId,
      kind: "device.reading",
      payload: { deviceId: input.deviceId, reading: input.reading, receivedAt: input.receivedAt },
      transactionId: input.transactionId,
    },
    {
      id: `${bus.topology.ingressStream}:${input.messageId}`,
      time: input.receivedAt,
      // A resend arrives at another time, so its event id differs: the stream drops it by the
      // message's id (after the duplicate window it is a second delivery, as at-least-once allows).
      msgId: input.messageId,
    },
  );
}
