// What a delivery attempt needs to know first, read at the moment it is attempted: the hook as
// it is now (status, url, sealed secret, since when it is active) and the last attempt of this
// delivery; for a fan-out or a recovery, whether another delivery of its event reached the hook;
// for a delivery of a per-entity queue, whether it is still in its queue. Read for many deliveries at once (the deliverer batches concurrent reads into one call).
import type { PreparedCall } from "./signing-lock.js";
import type { HookStatus } from "@waybill/contracts/limits/hooks.js";

export interface DeliveryKey {
  tenantId: string;
  hookId: string;
  deliveryId: string;
  /** With `trigger` "event" or "recover": checked for a success of another delivery of this event. */
  eventId?: string;
  trigger?: string;
  /** Set on a delivery of a per-entity queue: checked for still being in its queue. */
  entity?: string | null;
}

export interface DeliveryState {
  url: string;
  status: HookStatus;
  secretSealed: string;
  /** Deliveries of events older than this (the hook's creation or last resume) are not sent. */
  activeSince: Date;
  lastAttempt: number | null;
  lastOutcome: "succeeded" | "failed" | null;
  lastNextAttemptAt: Date | null;
  /** Some delivery of this event to this hook succeeded (checked for fan-outs and recoveries only). */
  eventDelivered: boolean;
  /**
   * False for a per-entity delivery that left its queue: finished already (this is a redelivered
   * copy), or replaced there by a recovery's or a manual retry's delivery of its event.
   */
  queued: boolean;
  /** An unordered fan-out whose place was taken by a copy in its entity's queue when ordering was turned on. */
  movedToQueue: boolean;
}

interface StateRow {
  n: number;
  url: string;
  status: HookStatus;
  secret_sealed: string;
  active_since: Date;
  last_attempt: number | null;
  last_outcome: "succeeded" | "failed" | null;
  last_next_attempt_at: Date | null;
  event_delivered: boolean;
  queued: boolean;
  moved_to_queue: boolean;
}

/** The states of many deliveries (see deliveryStatesRead), one row per delivery whose hook exists. */
// The checks past the last attempt run only for the deliveries that need them (a gating condition
// on d's and h's columns): on an unordered hook's first attempts they cost nothing.
const DELIVERY_STATES_SQL = `SELECT d.n, h.url, h.status, h.secret_sealed, h.active_since,
            e.attempt AS last_attempt, e.outcome AS last_outcome, e.next_attempt_at AS last_next_attempt_at,
            s.ok IS NOT NULL AS event_delivered, (NOT d.ordered OR q.ok IS NOT NULL) AS queued, m.ok IS NOT NULL AS moved_to_queue
       FROM jsonb_to_recordset($1::jsonb) AS d(n int, tenant_id text, hook_id text, delivery_id text, event_id text, by_event boolean, ordered boolean)
       JOIN hooks h ON h.tenant_id = d.tenant_id AND h.id = d.hook_id
       LEFT JOIN LATERAL (SELECT attempt, outcome, next_attempt_at FROM executions
                           WHERE delivery_id = d.delivery_id ORDER BY attempt DESC LIMIT 1) e ON true
       LEFT JOIN LATERAL (SELECT true AS ok FROM executions x
                           WHERE d.by_event AND x.tenant_id = d.tenant_id AND x.event_id = d.event_id AND x.hook_id = d.hook_id
                             AND x.outcome = 'succeeded' LIMIT 1) s ON true
       LEFT JOIN LATERAL (SELECT true AS ok FROM ordered_deliveries o WHERE d.ordered AND o.delivery_id = d.delivery_id) q ON true
       LEFT JOIN LATERAL (SELECT true AS ok FROM ordered_deliveries o
                           WHERE h.ordering = 'perEntity' AND d.by_event AND NOT d.ordered AND o.delivery_id = d.delivery_id || ':ordered') m ON true`;

/**
 * The read of `keys`' states, to run under their hooks' signing locks (withSigningLocks) until the
 * secrets read are used to sign, so that no rotation commits in between.
 */
export function deliveryStatesRead(keys: DeliveryKey[]): PreparedCall {
  return {
    name: "dispatcher_delivery_states",
    text: DELIVERY_STATES_SQL,
    argument: JSON.stringify(
      keys.map((k, n) => ({
        n,
        tenant_id: k.tenantId,
        hook_id: k.hookId,
        delivery_id: k.deliveryId,
        event_id: k.eventId ?? null,
        by_event: k.eventId !== undefined && (k.trigger === "event" || k.trigger === "recover"),
        ordered: typeof k.entity === "string",
      })),
    ),
  };
}

/** Per key of the read, in order: its state, or undefined when the hook is not (or no longer) there. */
export function deliveryStatesFromRows(rows: unknown[], count: number): (DeliveryState | undefined)[] {
  const states: (DeliveryState | undefined)[] = new Array(count).fill(undefined);
  for (const row of rows as StateRow[]) {
    states[row.n] = {
      url: row.url,
      status: row.status,
      secretSealed: row.secret_sealed,
      activeSince: row.active_since,
      lastAttempt: row.last_attempt,
      lastOutcome: row.last_outcome,
      lastNextAttemptAt: row.last_next_attempt_at,
      eventDelivered: row.event_delivered,
      queued: row.queued,
      movedToQueue: row.moved_to_queue,
    };
  }
  return states;
}
