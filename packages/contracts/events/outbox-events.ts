// Catalog events into the outbox: validated against the catalog, wrapped in their envelope and
// written in the caller's transaction through the platform outbox's one INSERT.
import { currentTransactionId } from "@waybill/platform/context.js";
import type { Queryable } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import type { Topology } from "@waybill/platform/nats.js";
import { insertOutboxRows, outboxHeaders, type OutboxRecord } from "@waybill/platform/outbox.js";
import { EVENT_PAYLOADS, type EventEnvelope, type EventKind, type EventPayload } from "./catalog.js";

export interface NewEvent<K extends EventKind = EventKind> {
  tenantId: string;
  kind: K;
  payload: EventPayload<K>;
  /** The operation the event belongs to; by default the one running now (see context.ts). */
  transactionId?: string;
}

/** Writes events to the outbox inside the caller's transaction; returns their envelopes (with the database's time). */
export async function appendEvents(client: Queryable, topology: Topology, events: NewEvent[]): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const { envelopes, records } = outboxRecords(topology, events);
  await insertOutboxRows(client, records);
  return envelopes;
}

/** Validates an event against the catalog and wraps it in its envelope (a new id and time unless given). */
export function eventEnvelope(event: NewEvent, transactionId: string, given: { id?: string; time?: string } = {}): EventEnvelope {
  const payload = EVENT_PAYLOADS[event.kind].parse(event.payload) as Record<string, unknown>;
  return { id: given.id ?? newId("evt"), kind: event.kind, time: given.time ?? new Date().toISOString(), transactionId, ...payload };
}

/**
 * Validates events against the catalog and builds their envelopes and outbox records, for
 * insertOutboxRows or a statement that writes them itself (outboxInsertFromSql).
 */
export function outboxRecords(topology: Topology, events: NewEvent[]): { envelopes: EventEnvelope[]; records: OutboxRecord[] } {
  const current = currentTransactionId();
  const envelopes: EventEnvelope[] = [];
  const records: OutboxRecord[] = [];
  for (const event of events) {
    const transactionId = event.transactionId ?? current;
    const envelope = eventEnvelope(event, transactionId);
    envelopes.push(envelope);
    records.push({
      id: envelope.id,
      tenantId: event.tenantId,
      kind: event.kind,
      subject: topology.eventSubject(event.tenantId, event.kind),
      event: envelope,
      headers: outboxHeaders(event.tenantId, transactionId),
      // The envelope's time becomes the moment its row is written, after the change it announces.
      timed: true,
    });
  }
  return { envelopes, records };
}
