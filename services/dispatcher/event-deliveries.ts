// A new event's deliveries, attempted straight from the EVENTS consumer. Queueing every hook ×
// event pair through the outbox and the DELIVERIES stream before its one POST cost more than the
// POST itself (an outbox row written, read and deleted, a message published, consumed and acked);
// so the pairs go to the delivery scheduler directly, and DELIVERIES carries only what needs it:
// retries, and what a hook could not take now (its lane full, its breaker open, its receiver slow).
//
// At-least-once holds because the event's message is acknowledged only once every pair is settled:
// its attempt recorded (executions), or its delivery stored in DELIVERIES. A crash before that makes
// JetStream redeliver the event; the redelivered event offers every subscribed hook again, and the
// deliverer, which reads each delivery's executions first, skips what was already delivered.
//
// A per-entity hook's delivery first joins its entity's queue (ordered-deliveries.ts); it is
// attempted here only when it is the queue's head, and otherwise counts as stored: the head's
// finish sends it when its turn comes.
//
// The EVENTS consumer takes a new event only while few of these deliveries wait in their lanes
// (`admit`). Without that gate a burst that outran the dispatcher itself (all hooks healthy, the
// process busy) was taken in hundreds of events at a time; the lanes could not start them within
// their budget, so nearly all went through DELIVERIES after all (19 596 of 22 668 in
// bench:webhooks), paying for the publish and the second consumption the direct path exists to
// avoid. EVENTS keeps them as durably while they wait there. Running deliveries do not count: a
// hook that hangs holds at most its lane's concurrency, and it must not close the gate for others.
import { currentContext, TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import { TRANSACTION_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import type { DeliveryMessage } from "./delivery-message.js";
import type { DeliveryScheduler } from "./delivery-scheduler.js";
import type { StoreDelivery } from "./deliveries-store.js";
import { isOrdered, type OrderedDelivery } from "./ordered-deliveries.js";

/**
 * How long a new event's delivery may wait in its hook's queue (its event's acknowledgement waits
 * for it); longer waits go to DELIVERIES. 1 s was too short: a pause of the whole process (a
 * burst's first seconds) made every lane look slow, and most of the burst went through DELIVERIES.
 */
export const DIRECT_WAIT_BUDGET_MS = 5_000;
/** A hook whose deliveries take longer than this gets new events through DELIVERIES, not directly. */
export const DIRECT_MAX_PACE_MS = 2_000;
/** New events are taken only while fewer of their deliveries than this wait in lanes to start. */
export const DIRECT_WAITING_MAX = 512;
/**
 * The budget each hook's share of direct queue places is taken from (its share: this divided by
 * the busy hooks plus one), so that one slow hook cannot take every waiting place of the gate.
 */
export const DIRECT_HELD_BUDGET = 2 * DIRECT_WAITING_MAX;

/** How fast the deliveries-per-event estimate falls back when events have fewer deliveries. */
const FAN_OUT_DECAY = 0.05;

/** The event message the deliveries come from (a JsMsg, in production). */
export interface EventMessage {
  working(): void;
  info: { deliveryCount: number };
  headers?: { get(name: string): string } | undefined;
}

export interface EventDeliveriesDeps {
  scheduler: DeliveryScheduler;
  store: StoreDelivery;
  /** Queues ordered deliveries in their entity's queue; answers whether each is the head now. */
  enqueueOrdered(delivery: OrderedDelivery): Promise<boolean>;
}

export interface EventDeliveries {
  /** Offers the deliveries to the scheduler; resolves once each is recorded or stored in DELIVERIES. */
  deliver(message: EventMessage, deliveries: DeliveryMessage[]): Promise<void>;
  /**
   * Resolves once another event may be taken: fewer than `waitingMax` deliveries wait to start, or,
   * after the gate closed, half as many.
   */
  admit(): Promise<void>;
  /** An admitted event's deliveries are known (or taking it failed): it no longer holds a place. */
  release(): void;
}

export function createEventDeliveries(deps: EventDeliveriesDeps, waitingMax = DIRECT_WAITING_MAX): EventDeliveries {
  const { scheduler, store } = deps;
  // Deliveries waiting in lanes to start, and events admitted whose deliveries are not known yet.
  // An event being taken counts as the deliveries an event has had lately: counted as one, the
  // hundreds taken in one batch turned into four times as many deliveries as the gate allowed
  // (with four hooks), more than the lanes' places, and the rest went to DELIVERIES.
  let waiting = 0;
  let taking = 0;
  let perEvent = 1;
  let admissions: (() => void)[] = [];
  // Once full, the gate opens again only when half its places are free: events then come in in
  // groups, which the intake records with one statement each. Opened whenever one place freed,
  // it let them in one at a time, a statement each, which cost the database more per delivery
  // than storing the overflow in DELIVERIES had.
  let closed = false;
  const load = () => waiting + taking * perEvent;
  const wakeIfRoom = () => {
    if (load() >= waitingMax || (closed && load() > waitingMax / 2)) return;
    closed = false;
    const ready = admissions;
    admissions = [];
    for (const wake of ready) wake();
  };
  const leftQueue = () => {
    waiting -= 1;
    wakeIfRoom();
  };

  /** The deliveries to attempt now: unordered ones, and ordered ones at the head of their queue. */
  const dueNow = async (deliveries: DeliveryMessage[]): Promise<DeliveryMessage[]> => {
    if (!deliveries.some(isOrdered)) return deliveries;
    const heads = await Promise.all(deliveries.map((d) => (isOrdered(d) ? deps.enqueueOrdered(d) : true)));
    return deliveries.filter((_, i) => heads[i]);
  };

  async function deliver(message: EventMessage, all: DeliveryMessage[]): Promise<void> {
    // Up at once, down slowly: a burst of events with many hooks must not find the gate wide open.
    perEvent = all.length >= perEvent ? all.length : perEvent + FAN_OUT_DECAY * (all.length - perEvent);
    const deliveries = await dueNow(all);
    if (deliveries.length === 0) return;
    const transactionId = message.headers?.get(TRANSACTION_ID_NATS_HEADER) || "";
    // This consumer's hop (its span when tracing), so the deliveries continue from it.
    const traceparent = currentContext()?.traceparent ?? (message.headers?.get(TRACEPARENT_HEADER) || undefined);
    return new Promise<void>((resolve, reject) => {
      let open = deliveries.length;
      let failure: Error | undefined;
      const done = (error?: Error) => {
        failure ??= error;
        if (--open > 0) return;
        if (failure) reject(failure);
        else resolve();
      };
      for (const delivery of deliveries) {
        let settled = false;
        let queued = true;
        waiting += 1;
        const started = () => {
          if (!queued) return;
          queued = false;
          leftQueue();
        };
        const once = (fn: () => void) => {
          started();
          if (settled) return;
          settled = true;
          fn();
        };
        scheduler.submit(
          {
            delivery,
            settle: {
              ack: () => once(() => done()),
              // The delay is the DELIVERIES consumer's to keep: a recorded attempt names its next due
              // time, which that consumer reads before it attempts again.
              handBack: () =>
                once(() =>
                  store(delivery, { transactionId, traceparent }).then(
                    () => done(),
                    (error: Error) => done(error),
                  ),
                ),
              working: () => message.working(),
              started,
              keepsDelay: false,
              deliveryCount: message.info.deliveryCount,
              transactionId: transactionId || undefined,
              traceparent,
            },
          },
          { waitBudgetMs: DIRECT_WAIT_BUDGET_MS, maxPaceMs: DIRECT_MAX_PACE_MS, heldBudget: DIRECT_HELD_BUDGET },
        );
      }
    });
  }

  return {
    deliver,
    async admit() {
      while (closed || load() >= waitingMax) {
        closed = true;
        await new Promise<void>((resolve) => admissions.push(resolve));
      }
      taking += 1;
    },
    release() {
      taking -= 1;
      wakeIfRoom();
    },
  };
}
