// Fan-out: an event becomes one delivery per active hook of its tenant subscribed to its kind.
// The deliveries are written to the dispatcher's outbox in the same transaction that records the
// event, so a crash between recording and publishing loses nothing: the relay publishes them
// later, and Nats-Msg-Id = "<eventId>:<hookId>" makes a second publish a no-op.
import type { Queryable } from "../platform/db.js";
import type { EventEnvelope } from "../platform/events/catalog.js";
import { TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Topology } from "../platform/nats.js";
import type { DeliveryMessage } from "./delivery-message.js";

/** The subject of a hook's deliveries is this prefix + the hook id (checked, so SQL can build it). */
export function deliveriesSubjectPrefix(topology: Topology): string {
  const prefix = topology.deliveriesSubject("");
  if (topology.deliveriesSubject("hook_x") !== `${prefix}hook_x`) throw new Error("deliveries subjects are not <prefix><hookId>");
  return prefix;
}

/**
 * Records `event` in the event log and, when it is new there, queues its deliveries: one
 * statement (one round trip) in the caller's transaction. Returns whether the event was new and
 * how many deliveries it got.
 */
export async function recordAndFanOut(
  db: Queryable,
  topology: Topology,
  tenantId: string,
  event: EventEnvelope,
  eventJson: string,
): Promise<{ fresh: boolean; deliveries: number }> {
  const { rows } = await db.query<{ fresh: boolean; deliveries: number }>(
    `WITH logged AS (
       INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, event) VALUES ($1, $2, $3, $4, $5, $6::jsonb)
       ON CONFLICT (id) DO NOTHING RETURNING id
     ), queued AS (
       INSERT INTO outbox (id, tenant_id, kind, subject, event, headers)
       SELECT $1 || ':' || h.id, $2, $3, $7 || h.id,
              jsonb_build_object('deliveryId', $1 || ':' || h.id, 'tenantId', $2::text, 'hookId', h.id, 'trigger', 'event',
                                 'eventId', $1::text, 'eventKind', $3::text, 'eventJson', $8::text),
              $9::jsonb
         FROM hooks h, logged
        WHERE h.tenant_id = $2 AND h.on_kind = $3 AND h.status = 'active'
       ON CONFLICT (id) DO NOTHING RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM logged) AS fresh, (SELECT count(*) FROM queued)::int AS deliveries`,
    [
      event.id,
      tenantId,
      event.kind,
      event.time,
      event.transactionId,
      eventJson,
      deliveriesSubjectPrefix(topology),
      eventJson,
      JSON.stringify({ [TRANSACTION_ID_NATS_HEADER]: event.transactionId, [TENANT_ID_NATS_HEADER]: tenantId }),
    ],
  );
  return rows[0];
}

/** Writes deliveries to the outbox (in the caller's transaction) for the relay to publish. */
export async function queueDeliveries(db: Queryable, topology: Topology, deliveries: DeliveryMessage[], transactionId: string): Promise<void> {
  const rows = deliveries.map((delivery) => ({
    id: delivery.deliveryId,
    tenant_id: delivery.tenantId,
    kind: delivery.eventKind,
    subject: topology.deliveriesSubject(delivery.hookId),
    event: delivery,
    headers: { [TRANSACTION_ID_NATS_HEADER]: transactionId, [TENANT_ID_NATS_HEADER]: delivery.tenantId },
  }));
  // The platform outbox table and relay; ON CONFLICT keeps a repeated queueing harmless.
  await db.query(
    `INSERT INTO outbox (id, tenant_id, kind, subject, event, headers)
     SELECT id, tenant_id, kind, subject, event, headers FROM jsonb_to_recordset($1::jsonb)
       AS r(id text, tenant_id text, kind text, subject text, event jsonb, headers jsonb)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}
