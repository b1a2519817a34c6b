// Events that stand for a message already stored durably (a device's reading in INGRESS) go to
// EVENTS directly instead of through an outbox: their id and time are derived from that message,
// so handling it again publishes the same event, which JetStream drops within its duplicate
// window and the dispatcher's event log recognises by id after it. One publish per event instead
// of an inbox row, an outbox row, and the relay's read, publish and delete.
import { currentTransactionId } from "@waybill/platform/context.js";
import { derivedId } from "@waybill/platform/ids.js";
import { headers, publishDurable, type Bus } from "@waybill/platform/nats.js";
import { outboxHeaders } from "@waybill/platform/outbox.js";
import type { EventEnvelope } from "./catalog.js";
import { eventEnvelope, type NewEvent } from "./outbox-events.js";

/**
 * Publishes `event` with the id derived from `source.id` and the given time; resolves once
 * JetStream stored it. `source.msgId` (default: the event's id) is what the stream deduplicates
 * on: a device message's stored id, whose resend may carry another time.
 */
export async function publishDerivedEvent(bus: Bus, event: NewEvent, source: { id: string; time: string; msgId?: string }): Promise<EventEnvelope> {
  const transactionId = event.transactionId ?? currentTransactionId();
  const envelope = eventEnvelope(event, transactionId, { id: derivedId("evt", source.id, Date.parse(source.time)), time: source.time });
  const h = headers();
  for (const [name, value] of Object.entries(outboxHeaders(event.tenantId, transactionId))) h.set(name, value);
  await publishDurable(bus, bus.topology.eventSubject(event.tenantId, event.kind), JSON.stringify(envelope), {
    msgId: source.msgId ?? envelope.id,
    headers: h,
  });
  return envelope;
}
