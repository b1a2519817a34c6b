// Per-entity ordered delivery: a `perEntity` hook gets the events about one entity one at a time,
// in the order they occurred, while other entities proceed. Each (hook, entity) has a queue in
// ordered_deliveries; only its head is out for delivery (directly, or in DELIVERIES while it waits
// for a retry). When the head is finished (delivered, its attempts exhausted, or dropped because
// the hook was paused or deleted) it leaves the queue and the next one is sent.
//
// Every change to a queue holds a transaction-scoped advisory lock on its (hook, entity), so an
// event queued while the head finishes is either seen by the finish (and sent by it) or sees the
// head gone (and is sent by its own intake); never neither.
import type { Pool, PoolClient, Queryable } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { parseDeliveryMessage, type DeliveryMessage } from "./delivery-message.js";

/** A delivery of an ordered hook (its `entity` and `streamSeq` set by the fan-out). */
export type OrderedDelivery = DeliveryMessage & { entity: string; streamSeq: number };

export const isOrdered = (delivery: DeliveryMessage): delivery is OrderedDelivery =>
  typeof delivery.entity === "string" && typeof delivery.streamSeq === "number";

/** Locks the queues of these (hook, entity) pairs for the transaction, in one order (no deadlock). */
async function lockQueues(db: PoolClient, keys: { hookId: string; entity: string }[]): Promise<void> {
  const names = [...new Set(keys.map((k) => `ordered:${k.hookId}:${k.entity}`))].sort();
  await db.query("SELECT pg_advisory_xact_lock(hashtextextended(name, 0)) FROM unnest($1::text[]) AS name ORDER BY name", [names]);
}

/**
 * Queues ordered deliveries (a redelivered event's again: a no-op) and answers the ids of those
 * now at the head of their queue, which the caller sends; the rest wait for their turn.
 */
export async function enqueueOrdered(pool: Pool, deliveries: OrderedDelivery[]): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  return withTransaction(pool, (db) => joinQueues(db, deliveries, "keep"));
}

/**
 * A recovery's or a manual retry's deliveries join their entities' queues (in the caller's
 * transaction), each at the place its event occurred. An event already waiting in its queue (its
 * fan-out delivery waiting, or at the head until its next retry) is replaced by the new delivery,
 * so it is sent once, in its turn, and a head waiting for a retry goes now. Answers the deliveries
 * now at the head of their queue, which the caller sends; the head's finish sends the others.
 */
export async function joinOrderedQueues(db: PoolClient, deliveries: OrderedDelivery[]): Promise<OrderedDelivery[]> {
  if (deliveries.length === 0) return [];
  const heads = await joinQueues(db, deliveries, "replace");
  return deliveries.filter((d) => heads.has(d.deliveryId));
}

/** `keep`: a delivery of an event already queued stays; `replace`: the new one takes its place. */
async function joinQueues(db: PoolClient, deliveries: OrderedDelivery[], conflict: "keep" | "replace"): Promise<Set<string>> {
  await lockQueues(
    db,
    deliveries.map((d) => ({ hookId: d.hookId, entity: d.entity })),
  );
  const { rows } = await db.query<{ delivery_id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(hook_id text, entity text, event_time timestamptz, stream_seq bigint, delivery_id text, delivery text)
     ), queued AS (
       INSERT INTO ordered_deliveries (hook_id, entity, event_time, stream_seq, delivery_id, delivery)
       SELECT hook_id, entity, event_time, stream_seq, delivery_id, delivery FROM input
       ${
         conflict === "keep"
           ? "ON CONFLICT DO NOTHING"
           : "ON CONFLICT (hook_id, entity, event_time, stream_seq) DO UPDATE SET delivery_id = EXCLUDED.delivery_id, delivery = EXCLUDED.delivery"
       }
     )
     SELECT i.delivery_id FROM input i
      WHERE NOT EXISTS (SELECT 1 FROM ordered_deliveries o
                         WHERE o.hook_id = i.hook_id AND o.entity = i.entity AND (o.event_time, o.stream_seq) < (i.event_time, i.stream_seq))`,
    [
      JSON.stringify(
        deliveries.map((d) => ({
          hook_id: d.hookId,
          entity: d.entity,
          event_time: d.eventTime,
          stream_seq: d.streamSeq,
          delivery_id: d.deliveryId,
          delivery: JSON.stringify(d),
        })),
      ),
    ],
  );
  // The statement's snapshot does not see its own inserts: an input row is the head when
  // nothing stored earlier precedes it and no earlier input row of the same queue does.
  const heads = new Set(rows.map((r) => r.delivery_id));
  const first = new Map<string, OrderedDelivery>();
  for (const d of deliveries) {
    const key = `${d.hookId}\u0000${d.entity}`;
    const seen = first.get(key);
    if (!seen || before(d, seen)) first.set(key, d);
  }
  return new Set(deliveries.filter((d) => heads.has(d.deliveryId) && first.get(`${d.hookId}\u0000${d.entity}`) === d).map((d) => d.deliveryId));
}

const before = (a: OrderedDelivery, b: OrderedDelivery) => {
  const ta = Date.parse(a.eventTime ?? "");
  const tb = Date.parse(b.eventTime ?? "");
  return ta !== tb ? ta < tb : a.streamSeq < b.streamSeq;
};

/**
 * The delivery is finished: it leaves its queue. Answers the queue's next delivery when this one
 * was the head (the caller sends it), undefined otherwise.
 */
export async function finishOrdered(pool: Pool, delivery: OrderedDelivery): Promise<DeliveryMessage | undefined> {
  return withTransaction(pool, async (db) => {
    await lockQueues(db, [{ hookId: delivery.hookId, entity: delivery.entity }]);
    const { rows } = await db.query<{ was_head: boolean; next: string | null }>(
      `WITH gone AS (
         DELETE FROM ordered_deliveries WHERE delivery_id = $1 RETURNING hook_id, entity, event_time, stream_seq
       )
       SELECT NOT EXISTS (SELECT 1 FROM ordered_deliveries o, gone g
                           WHERE o.hook_id = g.hook_id AND o.entity = g.entity AND (o.event_time, o.stream_seq) < (g.event_time, g.stream_seq)) AS was_head,
              (SELECT o.delivery FROM ordered_deliveries o, gone g
                WHERE o.hook_id = g.hook_id AND o.entity = g.entity AND o.delivery_id <> $1
                ORDER BY o.event_time, o.stream_seq LIMIT 1) AS next
         FROM gone`,
      [delivery.deliveryId],
    );
    const row = rows[0];
    // Not in its queue (finished before, by a redelivered copy): that finish sent the next one.
    if (!row?.was_head || row.next === null) return undefined;
    return parseDeliveryMessage(row.next);
  });
}

/**
 * Ordering turned off: every delivery waiting behind a head leaves its queue (the caller sends
 * them, unordered). Heads stay: they are out for delivery, and finishing them sends nothing more.
 */
export async function releaseOrderedDeliveries(db: Queryable, hookId: string): Promise<DeliveryMessage[]> {
  const { rows } = await db.query<{ delivery: string }>(
    `DELETE FROM ordered_deliveries o
      WHERE o.hook_id = $1
        AND EXISTS (SELECT 1 FROM ordered_deliveries p
                     WHERE p.hook_id = o.hook_id AND p.entity = o.entity AND (p.event_time, p.stream_seq) < (o.event_time, o.stream_seq))
      RETURNING o.delivery`,
    [hookId],
  );
  return rows.map((r) => ({ ...parseDeliveryMessage(r.delivery), entity: null, streamSeq: null }));
}
