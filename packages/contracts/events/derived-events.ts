// Events that stand for a message stored durably (a device's reading) go to EVENTS directly
// instead of through an outbox: one publish per event instead of an inbox row, an outbox row, and
// the relay's read, publish and delete. Either the event is derived from a message already stored
// (its id and time from that message, so handling it again publishes the same event, which
// JetStream drops within its duplicate window and the dispatcher's event log recognises by id
// after it), or the event is the stored form of the message itself, deduplicated by its id.
import { currentTransactionId } from "@waybill/platform/context.js";
import { derivedId } from "@waybill/platform/ids.js";
import { headers, publishDurable, type Bus } from "@waybill/platform/nats.js";
import { outboxHeaders } from "@waybill/platform/outbox.js";
import type { EventEnvelope } from "./catalog.js";
import { eventEnvelope, type NewEvent } from "./outbox-events.js";

/** Publishes `event` with the id derived from `source.id` and the given time; resolves once JetStream stored it (rejects an event the catalog refuses). */
export async function publishDerivedEvent(bus: Bus, event: NewEvent, source: { id: string; time: string }): Promise<EventEnvelope> {
  const transactionId = event.transactionId ?? currentTransactionId();
  const envelope = eventEnvelope(event, transactionId, { id: derivedId("evt", source.id, Date.parse(source.time)), time: source.time });
  return publishStoredEvent(bus, event.tenantId, envelope, envelope.id);
}

/**
 * Publishes `event` as the stored form of the message `message.msgId` (a resend of that message,
 * which may arrive at another time, is dropped by the stream within its duplicate window);
 * resolves once JetStream stored it.
 */
export async function publishEventOfMessage(bus: Bus, event: NewEvent, message: { msgId: string; time: string }): Promise<EventEnvelope> {
  const transactionId = event.transactionId ?? currentTransactionId();
  return publishStoredEvent(bus, event.tenantId, eventEnvelope(event, transactionId, { time: message.time }), message.msgId);
}

async function publishStoredEvent(bus: Bus, tenantId: string, envelope: EventEnvelope, msgId: string): Promise<EventEnvelope> {
  const h = headers();
  for (const [name, value] of Object.entries(outboxHeaders(tenantId, envelope.transactionId))) h.set(name, value);
  await publishDurable(bus, bus.topology.eventSubject(tenantId, envelope.kind), JSON.stringify(envelope), { msgId, headers: h });
  return envelope;
}
