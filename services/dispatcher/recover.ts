// POST /hooks/{id}/recover: after an outage at a receiver, every event of the hook's kind in a
// window whose delivery to the hook never succeeded is queued again (trigger "recover", one
// attempt each), through DELIVERIES like any delivery, so 202 means stored and going out.
// Bounded: at most RECOVER_MAX_EVENTS events a call (the answer says when more remain); one
// recovery of a hook at a time (409 recovery_in_progress); recovering the same window twice
// while the first is still queued sends nothing twice (one delivery id per event and hook).
// On a `perEntity` hook the recovered events join their entities' queues in the order they
// occurred (ordered-deliveries.ts): a receiver that asked for order gets it after an outage too.
import { currentTransactionId } from "@waybill/platform/context.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool, PoolClient } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { recoverDeliveryId, type DeliveryMessage } from "./delivery-message.js";
import { queueDeliveries } from "./fan-out.js";
import { hookPaused, loadHookRow } from "./hooks.js";
import { orderedByEntity, sendableNow } from "./ordered-redelivery.js";

export const RECOVER_MAX_EVENTS = 10_000;
/** Rows read and queued per statement, so no single statement holds a huge result. */
export const RECOVER_PAGE = 500;

export interface RecoverDeps {
  pool: Pool;
  topology: Topology;
}

export interface RecoverWindow {
  since: string;
  /** Defaults to now. */
  until?: string;
}

function instant(value: string, field: string): Date {
  const date = new Date(value);
  if (!value || Number.isNaN(date.getTime()))
    throw appError("validation_failed", `${field} must be an ISO 8601 date-time.`, {
      errors: [{ path: field, message: "an ISO 8601 date-time such as 2026-11-23T08:00:00Z" }],
    });
  return date;
}

export async function recoverHook(
  deps: RecoverDeps,
  tenantId: string,
  hookId: string,
  window: RecoverWindow,
  now = new Date(),
): Promise<{ queued: number; truncated: boolean }> {
  const since = instant(window.since, "since");
  const until = window.until ? instant(window.until, "until") : now;
  if (since >= until)
    throw appError("validation_failed", "since must be before until.", { errors: [{ path: "since", message: "must be before until (or now)" }] });
  const hook = await loadHookRow(deps.pool, tenantId, hookId);
  if (hook.status !== "active") throw hookPaused(hookId);
  return withTransaction(deps.pool, async (client) => {
    // One recovery of a hook at a time, across every dispatcher replica.
    const { rows: locked } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext('recover:' || $1)) AS ok", [hookId]);
    if (!locked[0].ok) throw appError("recovery_in_progress", `A recovery of hook ${hookId} is running; try again when it has finished.`);
    let queued = 0;
    let after = "";
    let truncated = false;
    // A per-entity hook's deliveries join their queues in one statement at the end: its queue
    // locks are then taken in one sorted order, as the fan-out takes them (page by page, a later
    // page's locks could be taken after a fan-out took them in the other order: a deadlock).
    const ordered: DeliveryMessage[] = [];
    for (;;) {
      const limit = Math.min(RECOVER_PAGE, RECOVER_MAX_EVENTS - queued);
      const page = await unsucceededEvents(client, tenantId, hookId, hook.on_kind, since, until, after, limit);
      const deliveries: DeliveryMessage[] = page.map((event) => ({
        deliveryId: recoverDeliveryId(event.id, hookId),
        tenantId,
        hookId,
        trigger: "recover",
        eventId: event.id,
        eventKind: event.kind,
        eventTime: event.time,
        eventJson: event.event,
        ...(hook.ordering === "perEntity" ? orderedByEntity(event.event, event.stream_seq) : {}),
      }));
      if (hook.ordering === "perEntity") ordered.push(...deliveries);
      else if (deliveries.length > 0) await queueDeliveries(client, deps.topology, deliveries, currentTransactionId());
      queued += page.length;
      if (page.length < limit) break;
      after = page[page.length - 1].id;
      if (queued >= RECOVER_MAX_EVENTS) {
        truncated = (await unsucceededEvents(client, tenantId, hookId, hook.on_kind, since, until, after, 1)).length > 0;
        break;
      }
    }
    const heads = await sendableNow(client, ordered);
    if (heads.length > 0) await queueDeliveries(client, deps.topology, heads, currentTransactionId());
    return { queued, truncated };
  });
}

/** Events of `kind` in [since, until), oldest first after `after`, never delivered to the hook with success. */
async function unsucceededEvents(client: PoolClient, tenantId: string, hookId: string, kind: string, since: Date, until: Date, after: string, limit: number) {
  const { rows } = await client.query<{ id: string; kind: string; time: string; event: string; stream_seq: string | null }>(
    `SELECT e.id, e.kind, to_json(e.time) #>> '{}' AS time, e.event::text AS event, e.stream_seq
       FROM event_log e
      WHERE e.tenant_id = $1 AND e.kind = $2 AND e.time >= $3 AND e.time < $4 AND e.id > $5
        AND NOT EXISTS (SELECT 1 FROM executions x WHERE x.tenant_id = $1 AND x.event_id = e.id AND x.hook_id = $6 AND x.outcome = 'succeeded')
      ORDER BY e.id
      LIMIT $7`,
    [tenantId, kind, since, until, after, hookId, limit],
  );
  return rows;
}
