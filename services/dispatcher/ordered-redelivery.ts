// Recover and manual retry on a `perEntity` hook: the event goes back into its entity's queue at
// the place it occurred, instead of being sent at once beside the queue (a receiver that asked for
// order would otherwise get `completed` before `inProgress` after an outage). Events about no
// entity, and events logged before their position in EVENTS was kept, are sent at once as before.
import type { PoolClient } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { entityOf } from "@waybill/contracts/events/entity.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { isOrdered, joinOrderedQueues } from "./ordered-deliveries.js";

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
