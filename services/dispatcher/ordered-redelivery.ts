// Recover and manual retry on a `perEntity` hook: the event goes back into its entity's queue at
// the place it occurred, instead of being sent at once beside the queue (a receiver that asked for
// order would otherwise get `completed` before `inProgress` after an outage). Events about no
// entity, and events logged before their position in EVENTS was kept, are sent at once as before.
// Turning ordering on moves the deliveries waiting for a retry into their queues likewise, and so
// does the record of a failed attempt that was on its way when ordering was turned on.
import type { PoolClient } from "@waybill/platform/db.js";
import { currentTransactionId } from "@waybill/platform/context.js";
import type { Topology } from "@waybill/platform/nats.js";
import { derivedId } from "@waybill/platform/ids.js";
import { preparedStatement } from "@waybill/platform/prepared.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { entityOf } from "@waybill/contracts/events/entity.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { isOrdered, joinOrderedQueues } from "./ordered-deliveries.js";
import { queueDeliveries } from "./fan-out.js";

/** The queue fields of a redelivery of `eventJson` on a per-entity hook (none when it cannot be ordered). */
export function orderedByEntity(eventJson: string, streamSeq: string | number | null): { entity: string; streamSeq: number } | Record<string, never> {
  if (streamSeq === null) return {};
  const entity = entityOf(JSON.parse(eventJson) as EventEnvelope);
  return entity === undefined ? {} : { entity, streamSeq: Number(streamSeq) };
}

/**
 * The deliveries to store in DELIVERIES now (in the caller's transaction): the unordered ones, and
 * the ordered ones that are at the head of their queue once they joined it. The others wait in
 * their queue; the delivery ahead of each sends it when it finishes.
 */
export async function sendableNow(db: PoolClient, deliveries: DeliveryMessage[]): Promise<DeliveryMessage[]> {
  const ordered = deliveries.filter(isOrdered);
  if (ordered.length === 0) return deliveries;
  const heads = new Set(await joinOrderedQueues(db, ordered));
  return deliveries.filter((d) => !isOrdered(d) || heads.has(d));
}

/** How far back turning ordering on looks for deliveries still waiting for a retry (the default schedule spans ~28 h). */
export const PENDING_RETRY_LOOKBACK_MS = 7 * 24 * 3_600_000;
/** At most this many such deliveries are moved into queues per change of the hook. */
export const PENDING_RETRY_MAX = 10_000;

/**
 * Ordering turned on: each of the hook's fan-out deliveries that is waiting for a retry (outside
 * any queue) is replaced by one in its entity's queue (id `<delivery id>:ordered`, its attempts
 * counted afresh), so later events about that entity wait for it instead of overtaking it. The
 * old copy, when its retry comes, finds its replacement queued and is dropped (delivery-state.ts).
 * Answers the replacements now at the head of their queue, to store in DELIVERIES.
 */
export async function orderPendingRetries(db: PoolClient, hookId: string, now = Date.now()): Promise<DeliveryMessage[]> {
  return queuedCopies(db, {
    text: queuedCopiesSql(
      `SELECT DISTINCT ON (x.delivery_id) x.delivery_id, x.hook_id, x.tenant_id, x.event_id, x.event_kind, x.outcome, x.next_attempt_at
         FROM executions x
        WHERE x.hook_id = $1 AND x.id >= $2 AND x.trigger IN ('event', 'retry')
        ORDER BY x.delivery_id, x.attempt DESC`,
    ),
    values: [hookId, derivedId("exe", "", now - PENDING_RETRY_LOOKBACK_MS)],
  });
}

/**
 * An attempt that was on its way when ordering was turned on, failed, and has just been recorded
 * (in the caller's transaction, which holds its hook's row from that record on: recordExecutions)
 * is moved into its entity's queue the same way, before any later event about its entity is taken
 * in behind it. `deliveryIds`: failed unordered fan-out attempts with a retry due; those whose hook
 * is not `perEntity` (now that its row is locked, no change of it can be pending) stay as they are.
 */
export async function orderRecordedRetries(db: PoolClient, deliveryIds: string[]): Promise<DeliveryMessage[]> {
  if (deliveryIds.length === 0) return [];
  return queuedCopies(db, ORDER_RECORDED_RETRIES([deliveryIds]));
}

// Prepared once per connection: it runs with every batch that records such a failure, where
// planning it afresh was most of its cost (bench:record-cost: 219 → 110 µs per row).
const ORDER_RECORDED_RETRIES = preparedStatement(
  "dispatcher_order_recorded_retries",
  queuedCopiesSql(
    `SELECT DISTINCT ON (x.delivery_id) x.delivery_id, x.hook_id, x.tenant_id, x.event_id, x.event_kind, x.outcome, x.next_attempt_at
       FROM executions x JOIN hooks h ON h.id = x.hook_id AND h.tenant_id = x.tenant_id AND h.ordering = 'perEntity'
      WHERE x.delivery_id = ANY($1::text[]) AND x.trigger IN ('event', 'retry')
      ORDER BY x.delivery_id, x.attempt DESC`,
  ),
);

/** The deliverer's `orderRetries`: the recorded retries' copies at the head of their queue go to DELIVERIES. */
export function recordedRetryOrderer(topology: Topology): (db: PoolClient, deliveryIds: string[]) => Promise<void> {
  return async (db, deliveryIds) => queueDeliveries(db, topology, await orderRecordedRetries(db, deliveryIds), currentTransactionId());
}

/**
 * The statement behind queuedCopies: of the deliveries `latest` finds (their last attempts), those
 * whose last attempt failed with a retry due and whose event has a place in its entity's queue,
 * unless the delivery or its copy is queued already.
 */
function queuedCopiesSql(latest: string): string {
  return `WITH latest AS (${latest})
     SELECT l.delivery_id, l.hook_id, l.tenant_id, l.event_id, l.event_kind, to_json(e.time) #>> '{}' AS time, e.event::text AS event, e.stream_seq
       FROM latest l JOIN event_log e ON e.id = l.event_id AND e.tenant_id = l.tenant_id
      WHERE l.outcome = 'failed' AND l.next_attempt_at IS NOT NULL AND e.stream_seq IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM ordered_deliveries o WHERE o.delivery_id IN (l.delivery_id, l.delivery_id || ':ordered'))
      LIMIT ${PENDING_RETRY_MAX}`;
}

/** The `:ordered` copies of what `query` (a queuedCopiesSql statement) finds, joined to their queues. Answers those at the head. */
async function queuedCopies(db: PoolClient, query: { name?: string; text: string; values?: unknown[] }): Promise<DeliveryMessage[]> {
  const { rows } = await db.query<{
    delivery_id: string;
    hook_id: string;
    tenant_id: string;
    event_id: string;
    event_kind: string;
    time: string;
    event: string;
    stream_seq: string;
  }>(query);
  const deliveries: DeliveryMessage[] = rows.map((row) => ({
    deliveryId: `${row.delivery_id}:ordered`,
    tenantId: row.tenant_id,
    hookId: row.hook_id,
    trigger: "event",
    eventId: row.event_id,
    eventKind: row.event_kind,
    eventTime: row.time,
    eventJson: row.event,
    ...orderedByEntity(row.event, row.stream_seq),
  }));
  return sendableNow(db, deliveries.filter(isOrdered));
}
