// What the dispatcher does with each event from EVENTS first: record it in the tenant's event log
// and find its deliveries, signing a new event's (fan-out.ts). Events taken in at the same time
// share one statement (see batcher.ts). An event that comes again is not recorded twice, but its
// deliveries are offered again (an earlier attempt at it may have been cut short; see fan-out.ts).
import type { Pool } from "@waybill/platform/db.js";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { createBatcher } from "@waybill/platform/batcher.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { recordEvents, type IncomingEvent, type DeliverySigner } from "./fan-out.js";

export interface EventIntakeDeps {
  pool: Pool;
  /** Signs a new event's deliveries under their hooks' signing locks (the deliverer's presigner). */
  signer: DeliverySigner;
}

export interface Intake {
  event: EventEnvelope;
  fresh: boolean;
  deliveries: DeliveryMessage[];
  /** Resolves once the event's record has committed: its message must not be acknowledged before. */
  committed: Promise<void>;
}

export type TakeEvent = (tenantId: string, event: EventEnvelope, eventJson: string, streamSeq: number) => Promise<Intake>;

/**
 * Events recorded by one statement at most. Few statements run at once, so this bounds the
 * rate: with 100 (the batcher's default) intake stayed near 8,000 events/s in bench:devices,
 * below what the gateway stores of device readings alone.
 */
export const EVENT_INTAKE_MAX_BATCH = 500;

/**
 * Statements in flight at once. With one, a backlog's statements ran one after the other on one
 * PostgreSQL backend, and its intake stayed further below the gateway's rate: bench:devices'
 * readings processed / ingested, one bench after the other, 0.75 (0.75, 0.74, 0.76) with one and
 * 0.81 (0.82, 0.81, 0.80) with two, the backlog left after the gateway phase taken in 3.4 s and
 * 2.5 s; three did no better than two. Their answers are taken in the order the batches went
 * (the batcher's `inOrder`): ordered deliveries join their entities' queues in the order events
 * were taken in. The statements do not wait for each other: the signing locks are shared, and an
 * event in both (a redelivery) waits for the other's COMMIT, which waits for no answer.
 */
export const EVENT_INTAKE_MAX_CONCURRENT = 2;

/**
 * Under load, how long events wait behind a statement in flight for more to share the next one.
 * Each statement has a fixed cost (BEGIN, the hooks' locks, COMMIT with its WAL flush): about
 * 0.54 ms of PostgreSQL's CPU against 56 µs per event, so in the ~10-event batches that came
 * during one statement at 1,500 orders/s it was half of each event's. An event that arrives with
 * no statement in flight and none waiting goes at once: a lone event pays nothing.
 */
export const EVENT_INTAKE_LINGER_MS = 10;
/**
 * A batch of this many events goes without lingering: with a backlog (device readings at
 * thousands a second), waiting only idled the statement, and readings processed / ingested fell
 * from 0.85 to 0.74 in bench:devices.
 */
export const EVENT_INTAKE_LINGER_BELOW = 32;

export function createEventIntake(deps: EventIntakeDeps): TakeEvent {
  const take = createBatcher(
    async (events: IncomingEvent[]): Promise<Intake[]> => {
      const batch = await recordEvents(deps.pool, events, deps.signer);
      return batch.events.map(({ fresh, deliveries }, i) => ({ event: events[i].event, fresh, deliveries, committed: batch.committed }));
    },
    {
      maxBatch: EVENT_INTAKE_MAX_BATCH,
      maxConcurrent: EVENT_INTAKE_MAX_CONCURRENT,
      inOrder: true,
      lingerMs: EVENT_INTAKE_LINGER_MS,
      lingerOnlyWhenBusy: true,
      lingerBelow: EVENT_INTAKE_LINGER_BELOW,
      // The consumer hands over a pulled group of events one at a time, awaiting between them:
      // gathered per microtask checkpoint, the group's first went alone, and the rest were split at
      // lingerBelow (in bench:webhooks groups of 64 went as 1 + 32 + 31 statements, now as one).
      // bench:intake-cost: 38.8–50.7 µs of PostgreSQL CPU per event in statements of 21, 33.1–34.4 in 64.
      gather: "turn",
    },
  );
  /** `eventJson` is the message as received (`event` parsed from it); it becomes the body of every delivery. */
  return (tenantId, event, eventJson, streamSeq) => take({ tenantId, event, eventJson, streamSeq });
}
