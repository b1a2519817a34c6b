// Fan-out: an event becomes one delivery per active hook of its tenant subscribed to its kind.
// The deliveries are written to the dispatcher's outbox in the same transaction that records the
// event, so a crash between recording and publishing loses nothing: the relay publishes them
// later, and Nats-Msg-Id = "<eventId>:<hookId>" makes a second publish a no-op.
import type { Queryable } from "../platform/db.js";
import type { EventEnvelope } from "../platform/events/catalog.js";
import { TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Topology } from "../platform/nats.js";
import { fanOutDeliveryId, type DeliveryMessage } from "./delivery-message.js";

/** Queues the deliveries of `event` inside the caller's transaction; returns how many. */
export async function fanOut(db: Queryable, topology: Topology, tenantId: string, event: EventEnvelope, eventJson: string): Promise<number> {
  const { rows: hooks } = await db.query<{ id: string }>(
    `SELECT id FROM hooks WHERE tenant_id = $1 AND on_kind = $2 AND status = 'active'`,
    [tenantId, event.kind],
  );
  if (hooks.length === 0) return 0;
  const deliveries = hooks.map((hook) => ({
    deliveryId: fanOutDeliveryId(event.id, hook.id),
    tenantId,
    hookId: hook.id,
    trigger: "event" as const,
    eventId: event.id,
    eventKind: event.kind,
    eventJson,
  }));
  await queueDeliveries(db, topology, deliveries, event.transactionId);
  return deliveries.length;
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
  // The platform outbox table and relay; ON CONFLICT keeps a repeated fan-out harmless.
  await db.query(
    `INSERT INTO outbox (id, tenant_id, kind, subject, event, headers)
     SELECT id, tenant_id, kind, subject, event, headers FROM jsonb_to_recordset($1::jsonb)
       AS r(id text, tenant_id text, kind text, subject text, event jsonb, headers jsonb)
     ON CONFLICT (id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}
