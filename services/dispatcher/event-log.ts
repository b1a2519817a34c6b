// Recording events from EVENTS into the tenant's event log.
import type { Queryable } from "../platform/db.js";
import type { EventEnvelope } from "../platform/events/catalog.js";

/** Returns false when the event was already recorded (a redelivery). */
export async function recordEvent(db: Queryable, tenantId: string, event: EventEnvelope): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, event) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING`,
    [event.id, tenantId, event.kind, event.time, event.transactionId, event],
  );
  return rowCount === 1;
}
