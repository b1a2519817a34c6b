// Fan-out: an event becomes one delivery per active hook of its tenant subscribed to its kind
// (active since before the event occurred: an event of a pause that arrives late is not queued).
// A new event's deliveries are attempted straight away (event-deliveries.ts); re-deliveries asked
// for by hand go through the dispatcher's outbox into DELIVERIES (queueDeliveries).
import type { Pool, Queryable } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendMessages } from "@waybill/platform/outbox.js";
import { entityOf } from "@waybill/contracts/events/entity.js";
import { eventLogRow } from "./event-log-row.js";
import { deliveriesSubject } from "./deliveries-stream.js";
import { fanOutDeliveryId, type DeliveryMessage } from "./delivery-message.js";
import { lockHooks, lockSubscribedHooks, signUnderLocks } from "./signing-lock.js";

export interface IncomingEvent {
  tenantId: string;
  event: EventEnvelope;
  /** The event as received; the body of each of its deliveries. */
  eventJson: string;
  /** Its position in EVENTS: orders a per-entity hook's events of the same time. */
  streamSeq: number;
}

export interface RecordedEvent {
  /** New in the event log (false: recorded before, by an earlier delivery or a duplicate publish). */
  fresh: boolean;
  /** One per active hook subscribed to its kind since before it occurred; none for a duplicate. */
  deliveries: DeliveryMessage[];
}

/**
 * Records the events (one jsonb parameter, a row per event) and answers, per event, whether it was
 * new in the log and which of its kind's hooks became active only after it occurred; and, in one
 * last row (id null), every active hook subscribed to the batch's kinds, with what a new event's
 * deliveries are signed with (url, sealed secret), read in this statement's snapshot.
 *
 * The hooks are read once per batch, not once per event: the events of a batch are mostly of a
 * few kinds, and reading and aggregating each event's hooks as JSON cost PostgreSQL about a quarter
 * of taking an event in (59 µs of CPU per event in batches of 20 against 45, with 4 hooks).
 */
const RECORD_EVENTS_SQL = `WITH input AS (
       SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb)
         AS r(id text, tenant_id text, kind text, time text, transaction_id text, stream_seq bigint, event jsonb)
     ), logged AS (
       INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, stream_seq, event)
       SELECT id, tenant_id, kind, time::timestamptz, transaction_id, stream_seq, event FROM input
       ON CONFLICT (id) DO NOTHING RETURNING id
     ), subscribed AS MATERIALIZED (
       SELECT h.id, h.tenant_id, h.on_kind, h.ordering, h.url, h.secret_sealed, h.active_since FROM hooks h
        WHERE h.status = 'active' AND (h.tenant_id, h.on_kind) IN (SELECT tenant_id, kind FROM input)
     )
     SELECT i.id, l.id IS NOT NULL AS fresh,
            ARRAY(SELECT s.id FROM subscribed s
                   WHERE s.tenant_id = i.tenant_id AND s.on_kind = i.kind AND s.active_since > i.time::timestamptz) AS inactive,
            NULL::json AS hooks
       FROM input i LEFT JOIN logged l ON l.id = i.id
     UNION ALL
     SELECT NULL, NULL, NULL,
            COALESCE(json_agg(json_build_array(s.tenant_id, s.on_kind, s.id, s.ordering = 'perEntity', s.url, s.secret_sealed) ORDER BY s.id), '[]')
       FROM subscribed s`;

/** One row per event, and a last one (id null) with the hooks subscribed to the batch's kinds. */
type RecordedRow =
  | {
      id: string;
      fresh: boolean;
      /** Its kind's hooks active only since after it occurred. */
      inactive: string[];
      hooks: null;
    }
  | {
      id: null;
      /** [tenant, kind, id, perEntity ordering, url, sealed secret] of each hook, by id (JSON: parsed natively, unlike a text array). */
      hooks: [string, string, string, boolean, string, string][];
    };

/** A hook an event of its tenant and kind goes to, as the intake read it. */
interface Subscriber {
  id: string;
  perEntity: boolean;
  url: string;
  secretSealed: string;
}

/** A new event's delivery to sign now, with its hook's url and sealed secret as the intake read them. */
export interface DeliveryToSign {
  delivery: DeliveryMessage;
  url: string;
  secretSealed: string;
}

/** Signs a new event's deliveries at intake (the deliverer's presigner). */
export interface DeliverySigner {
  /** A mark of the hooks' state, taken before they are read (hook-changes.ts); undefined: sign nothing now. */
  mark(): number | undefined;
  /** Signs, while the intake's transaction holds the hooks' signing locks; writes nothing. */
  sign(toSign: DeliveryToSign[], mark: number): void;
}

export interface RecordedBatch {
  events: RecordedEvent[];
  /** Resolves once the transaction that recorded them has committed (see signing-lock.ts's Signed). */
  committed: Promise<void>;
}

/**
 * Records events in the event log and answers, per event in order, whether it was new there and
 * its deliveries: to every hook subscribed to its kind, whether it is new or comes again (what was
 * delivered already is recognised by the deliverer, which reads each delivery's executions first).
 * An event already in the log is not taken for a harmless copy: JetStream's delivery count cannot
 * tell a redelivery from a first delivery after nats-server lost its consumer's state (kill -9
 * restores the last state it flushed, and the events taken since come again as new), and an event
 * whose deliveries were cut short then would reach none of its hooks. One statement for many events.
 *
 * A new event's unordered deliveries need nothing read but their hook's url and secret: no
 * attempt of them can have been recorded before their event was. So the statement runs after the
 * signing locks of the hooks it may fan out to (lockSubscribedHooks, an earlier statement of the
 * same round trip), and those deliveries are signed (`signer`) before the transaction commits: the
 * rotation's promise holds as for any attempt, and their attempts skip the read of their state.
 * A hook that was not among those locked (it became active between the two statements) is not
 * signed for here; its delivery reads its state when attempted, as every other one does.
 */
export async function recordEvents(pool: Pool, events: IncomingEvent[], signer: DeliverySigner): Promise<RecordedBatch> {
  const mark = signer.mark();
  const locks = mark === undefined ? lockHooks([]) : lockSubscribedHooks(events.map(({ tenantId, event }) => ({ tenantId, kind: event.kind })));
  const read = { name: "dispatcher_take_events", text: RECORD_EVENTS_SQL, argument: recordedEventsArgument(events) };
  const { value, committed } = await signUnderLocks(pool, locks, read, (rows, lockRows) => {
    const locked = new Set((lockRows as { id: string }[]).map((row) => row.id));
    const toSign: DeliveryToSign[] = [];
    const recorded = deliveriesOf(events, rows as RecordedRow[], (delivery, url, secretSealed) => {
      if (locked.has(delivery.hookId)) toSign.push({ delivery, url, secretSealed });
    });
    if (mark !== undefined) signer.sign(toSign, mark);
    return recorded;
  });
  return { events: value, committed };
}

/**
 * RECORD_EVENTS_SQL's argument: a row per event, the event itself as it was received, not as a
 * string of it. Escaped into a string, the event cost this process its escaping and PostgreSQL its
 * unescaping and a second parse: 34.0 µs of PostgreSQL's CPU per event against 30.8 now (batches
 * of 50, `npm run bench:intake-cost`, three pairs). The text goes in as it is: the intake's
 * `checkIncomingEvent` parsed that very text as one JSON object, so it cannot end its row early.
 */
function recordedEventsArgument(events: IncomingEvent[]): string {
  return `[${events.map(({ tenantId, event, eventJson, streamSeq }) => eventLogRow(tenantId, event, eventJson, streamSeq)).join(",")}]`;
}

/** Each event's deliveries from its row; `fresh` is called for a new event's unordered ones. */
function deliveriesOf(
  events: IncomingEvent[],
  rows: RecordedRow[],
  fresh: (delivery: DeliveryMessage, url: string, secretSealed: string) => void,
): RecordedEvent[] {
  const byId = new Map<string, Extract<RecordedRow, { id: string }>>();
  const subscribers = new Map<string, Subscriber[]>();
  for (const row of rows) {
    if (row.id !== null) byId.set(row.id, row);
    else
      for (const [tenantId, kind, id, perEntity, url, secretSealed] of row.hooks) {
        const key = subscriptionKey(tenantId, kind);
        const list = subscribers.get(key);
        if (list) list.push({ id, perEntity, url, secretSealed });
        else subscribers.set(key, [{ id, perEntity, url, secretSealed }]);
      }
  }
  // A second copy of an event in the same batch found it already recorded by the first.
  const seen = new Set<string>();
  return events.map(({ tenantId, event, eventJson, streamSeq }) => {
    const row = byId.get(event.id)!;
    const first = !seen.has(event.id);
    seen.add(event.id);
    if (!first) return { fresh: false, deliveries: [] };
    const entity = entityOf(event) ?? null;
    const hooks = subscribers.get(subscriptionKey(tenantId, event.kind)) ?? [];
    const deliveries: DeliveryMessage[] = [];
    for (const { id: hookId, perEntity, url, secretSealed } of hooks) {
      // Not a hook of this event: active only since after it occurred (created or resumed later).
      if (row.inactive.includes(hookId)) continue;
      // A per-entity hook's delivery waits its turn (ordered-deliveries.ts); an event about no
      // entity is not held back.
      const ordered = perEntity && entity !== null;
      const delivery: DeliveryMessage = {
        deliveryId: fanOutDeliveryId(event.id, hookId),
        tenantId,
        hookId,
        trigger: "event" as const,
        eventId: event.id,
        eventKind: event.kind,
        eventTime: event.time,
        eventJson,
        ...(ordered ? { entity, streamSeq } : {}),
      };
      if (row.fresh && !ordered) fresh(delivery, url, secretSealed);
      deliveries.push(delivery);
    }
    return { fresh: row.fresh, deliveries };
  });
}

const subscriptionKey = (tenantId: string, kind: string) => `${tenantId}\n${kind}`;

/** Writes deliveries to the outbox (in the caller's transaction) for the relay to publish. */
export async function queueDeliveries(db: Queryable, topology: Topology, deliveries: DeliveryMessage[], transactionId: string): Promise<void> {
  await appendMessages(
    db,
    deliveries.map((delivery) => ({
      id: delivery.deliveryId,
      tenantId: delivery.tenantId,
      kind: delivery.eventKind,
      subject: deliveriesSubject(topology, delivery.hookId),
      body: delivery,
      transactionId,
    })),
  );
}
