// Fan-out: an event becomes one delivery per active hook of its tenant subscribed to its kind
// (active since before the event occurred: an event of a pause that arrives late is not queued).
// A new event's deliveries are attempted straight away (event-deliveries.ts); re-deliveries asked
// for by hand go through the dispatcher's outbox into DELIVERIES (queueDeliveries).
import type { Queryable } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendMessages } from "@waybill/platform/outbox.js";
import { preparedStatement } from "@waybill/platform/prepared.js";
import { entityOf } from "@waybill/contracts/events/entity.js";
import { deliveriesSubject } from "./deliveries-stream.js";
import { fanOutDeliveryId, type DeliveryMessage } from "./delivery-message.js";

export interface IncomingEvent {
  tenantId: string;
  event: EventEnvelope;
  /** The event as received; the body of each of its deliveries. */
  eventJson: string;
  /** Its position in EVENTS: orders a per-entity hook's events of the same time. */
  streamSeq: number;
}

export interface RecordedEvent {
  /** New in the event log (false: recorded before, by an earlier delivery or a duplicate publish). */
  fresh: boolean;
  /** One per active hook subscribed to its kind since before it occurred; none for a duplicate. */
  deliveries: DeliveryMessage[];
}

const RECORD_EVENTS = preparedStatement(
  "dispatcher_record_events",
  `WITH input AS (
       SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb)
         AS r(id text, tenant_id text, kind text, time text, transaction_id text, stream_seq bigint, raw text)
     ), logged AS (
       INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, stream_seq, event)
       SELECT id, tenant_id, kind, time::timestamptz, transaction_id, stream_seq, raw::jsonb FROM input
       ON CONFLICT (id) DO NOTHING RETURNING id
     )
     SELECT i.id, l.id IS NOT NULL AS fresh, COALESCE(s.hook_ids, '{}') AS hook_ids, COALESCE(s.ordered, '{}') AS ordered
       FROM input i LEFT JOIN logged l ON l.id = i.id
       LEFT JOIN LATERAL (
         SELECT array_agg(h.id ORDER BY h.id) AS hook_ids, array_agg(h.ordering = 'perEntity' ORDER BY h.id) AS ordered
           FROM hooks h
          WHERE h.tenant_id = i.tenant_id AND h.on_kind = i.kind AND h.status = 'active' AND h.active_since <= i.time::timestamptz
       ) s ON true`,
);

/**
 * Records events in the event log and answers, per event in order, whether it was new there and
 * its deliveries: to every hook subscribed to its kind, whether it is new or comes again (what was
 * delivered already is recognised by the deliverer, which reads each delivery's executions first).
 * An event already in the log is not taken for a harmless copy: JetStream's delivery count cannot
 * tell a redelivery from a first delivery after nats-server lost its consumer's state (kill -9
 * restores the last state it flushed, and the events taken since come again as new), and an event
 * whose deliveries were cut short then would reach none of its hooks. One statement for many events.
 */
export async function recordEvents(db: Queryable, events: IncomingEvent[]): Promise<RecordedEvent[]> {
  const input = events.map(({ tenantId, event, eventJson, streamSeq }) => ({
    id: event.id,
    tenant_id: tenantId,
    kind: event.kind,
    time: event.time,
    transaction_id: event.transactionId,
    stream_seq: streamSeq,
    raw: eventJson,
  }));
  const { rows } = await db.query<{ id: string; fresh: boolean; hook_ids: string[]; ordered: boolean[] }>(RECORD_EVENTS([JSON.stringify(input)]));
  const byId = new Map(rows.map((row) => [row.id, row]));
  // A second copy of an event in the same batch found it already recorded by the first.
  const seen = new Set<string>();
  return events.map(({ tenantId, event, eventJson, streamSeq }) => {
    const row = byId.get(event.id)!;
    const first = !seen.has(event.id);
    seen.add(event.id);
    if (!first) return { fresh: false, deliveries: [] };
    const entity = entityOf(event) ?? null;
    return {
      fresh: row.fresh,
      deliveries: row.hook_ids.map((hookId, n) => ({
        deliveryId: fanOutDeliveryId(event.id, hookId),
        tenantId,
        hookId,
        trigger: "event" as const,
        eventId: event.id,
        eventKind: event.kind,
        eventTime: event.time,
        eventJson,
        // A per-entity hook's delivery waits its turn (ordered-deliveries.ts); an event about no
        // entity is not held back.
        ...(row.ordered[n] && entity !== null ? { entity, streamSeq } : {}),
      })),
    };
  });
}

/** Writes deliveries to the outbox (in the caller's transaction) for the relay to publish. */
export async function queueDeliveries(db: Queryable, topology: Topology, deliveries: DeliveryMessage[], transactionId: string): Promise<void> {
  await appendMessages(
    db,
    deliveries.map((delivery) => ({
      id: delivery.deliveryId,
      tenantId: delivery.tenantId,
      kind: delivery.eventKind,
      subject: deliveriesSubject(topology, delivery.hookId),
      body: delivery,
      transactionId,
    })),
  );
}
