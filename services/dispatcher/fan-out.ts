// Fan-out: an event becomes one delivery per active hook of its tenant subscribed to its kind
// (active since before the event occurred: an event of a pause that arrives late is not queued).
// A new event's deliveries are attempted straight away (event-deliveries.ts); re-deliveries asked
// for by hand go through the dispatcher's outbox into DELIVERIES (queueDeliveries).
import type { Queryable } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendMessages } from "@waybill/platform/outbox.js";
import { fanOutDeliveryId, type DeliveryMessage } from "./delivery-message.js";

export interface IncomingEvent {
  tenantId: string;
  event: EventEnvelope;
  /** The event as received; the body of each of its deliveries. */
  eventJson: string;
  /** JetStream delivered it before (a crash or a timeout may have cut its deliveries short). */
  redelivered: boolean;
}

export interface RecordedEvent {
  /** New in the event log (false: recorded before, by an earlier delivery or a duplicate publish). */
  fresh: boolean;
  /** One per active hook subscribed to its kind since before it occurred; none for a duplicate. */
  deliveries: DeliveryMessage[];
}

/**
 * Records events in the event log and answers, per event in order, whether it was new there and
 * its deliveries: to every hook subscribed to its kind when it is new, or when JetStream delivers
 * it again (what was delivered already is recognised by the deliverer); none for a copy that was
 * published twice. One statement for many events.
 */
export async function recordEvents(db: Queryable, events: IncomingEvent[]): Promise<RecordedEvent[]> {
  const input = events.map(({ tenantId, event, eventJson, redelivered }) => ({
    id: event.id,
    tenant_id: tenantId,
    kind: event.kind,
    time: event.time,
    transaction_id: event.transactionId,
    raw: eventJson,
    redelivered,
  }));
  const { rows } = await db.query<{ id: string; fresh: boolean; hook_ids: string[] }>(
    `WITH input AS (
       SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb)
         AS r(id text, tenant_id text, kind text, time text, transaction_id text, raw text, redelivered boolean)
       ORDER BY id, redelivered DESC
     ), logged AS (
       INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, event)
       SELECT id, tenant_id, kind, time::timestamptz, transaction_id, raw::jsonb FROM input
       ON CONFLICT (id) DO NOTHING RETURNING id
     )
     SELECT i.id, l.id IS NOT NULL AS fresh,
            CASE WHEN l.id IS NOT NULL OR i.redelivered THEN
              ARRAY(SELECT h.id FROM hooks h
                     WHERE h.tenant_id = i.tenant_id AND h.on_kind = i.kind AND h.status = 'active' AND h.active_since <= i.time::timestamptz
                     ORDER BY h.id)
            ELSE '{}' END AS hook_ids
       FROM input i LEFT JOIN logged l ON l.id = i.id`,
    [JSON.stringify(input)],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  // A second copy of an event in the same batch found it already recorded by the first.
  const seen = new Set<string>();
  return events.map(({ tenantId, event, eventJson }) => {
    const row = byId.get(event.id)!;
    const first = !seen.has(event.id);
    seen.add(event.id);
    if (!first) return { fresh: false, deliveries: [] };
    return {
      fresh: row.fresh,
      deliveries: row.hook_ids.map((hookId) => ({
        deliveryId: fanOutDeliveryId(event.id, hookId),
        tenantId,
        hookId,
        trigger: "event" as const,
        eventId: event.id,
        eventKind: event.kind,
        eventTime: event.time,
        eventJson,
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
      subject: topology.deliveriesSubject(delivery.hookId),
      body: delivery,
      transactionId,
    })),
  );
}
