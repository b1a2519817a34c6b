// Fan-out: an event becomes one delivery per active hook of its tenant subscribed to its kind
// (active since before the event occurred: an event of a pause that arrives late is not queued).
// The deliveries are written to the dispatcher's outbox in the same transaction that records the
// event, so a crash between recording and publishing loses nothing: the relay publishes them
// later, and Nats-Msg-Id = "<eventId>:<hookId>" makes a second publish a no-op.
import { markOutboxWritten } from "@waybill/platform/outbox-signal.js";
import type { Queryable } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendMessages, outboxHeaders, outboxInsertFromSql } from "@waybill/platform/outbox.js";
import type { DeliveryMessage } from "./delivery-message.js";

/** The subject of a hook's deliveries is this prefix + the hook id (checked, so SQL can build it). */
export function deliveriesSubjectPrefix(topology: Topology): string {
  const prefix = topology.deliveriesSubject("");
  if (topology.deliveriesSubject("hook_x") !== `${prefix}hook_x`) throw new Error("deliveries subjects are not <prefix><hookId>");
  return prefix;
}

export interface IncomingEvent {
  tenantId: string;
  event: EventEnvelope;
  /** The event as received; the body of each of its deliveries. */
  eventJson: string;
}

/**
 * Records events in the event log and queues the deliveries of those that are new there, in one
 * statement (one round trip, in the caller's transaction) for many events. Answers, per event in
 * order, whether it was new and how many deliveries it got.
 */
export async function recordAndFanOut(db: Queryable, topology: Topology, events: IncomingEvent[]): Promise<{ fresh: boolean; deliveries: number }[]> {
  const input = events.map(({ tenantId, event, eventJson }) => ({
    id: event.id,
    tenant_id: tenantId,
    kind: event.kind,
    time: event.time,
    transaction_id: event.transactionId,
    raw: eventJson,
    headers: outboxHeaders(tenantId, event.transactionId),
  }));
  const { rows } = await db.query<{ id: string; fresh: boolean; deliveries: number }>(
    `WITH input AS (
       SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb)
         AS r(id text, tenant_id text, kind text, time text, transaction_id text, raw text, headers jsonb)
     ), logged AS (
       INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, event)
       SELECT id, tenant_id, kind, time::timestamptz, transaction_id, raw::jsonb FROM input
       ON CONFLICT (id) DO NOTHING RETURNING id
     ), queued AS (
       ${outboxInsertFromSql(`SELECT i.id || ':' || h.id, i.tenant_id, i.kind, $2 || h.id,
              jsonb_build_object('deliveryId', i.id || ':' || h.id, 'tenantId', i.tenant_id, 'hookId', h.id, 'trigger', 'event',
                                 'eventId', i.id, 'eventKind', i.kind, 'eventTime', i.time, 'eventJson', i.raw),
              i.headers
         FROM input i
         JOIN logged l ON l.id = i.id
         JOIN hooks h ON h.tenant_id = i.tenant_id AND h.on_kind = i.kind AND h.status = 'active' AND h.active_since <= i.time::timestamptz`)}
       ON CONFLICT (id) DO NOTHING RETURNING split_part(id, ':', 1) AS event_id
     )
     SELECT i.id, l.id IS NOT NULL AS fresh, (SELECT count(*) FROM queued q WHERE q.event_id = i.id)::int AS deliveries
       FROM input i LEFT JOIN logged l ON l.id = i.id`,
    [JSON.stringify(input), deliveriesSubjectPrefix(topology)],
  );
  if (rows.some((row) => row.deliveries > 0)) markOutboxWritten(db);
  const byId = new Map(rows.map((row) => [row.id, row]));
  // A second copy of an event in the same batch found it already recorded by the first.
  const seen = new Set<string>();
  return events.map(({ event }) => {
    const row = byId.get(event.id)!;
    const first = !seen.has(event.id);
    seen.add(event.id);
    return first ? { fresh: row.fresh, deliveries: row.deliveries } : { fresh: false, deliveries: 0 };
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
