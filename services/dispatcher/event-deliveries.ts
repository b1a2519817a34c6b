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
// (admission-gate.ts).
import { currentContext, TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import { TRANSACTION_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { AdmissionGate } from "./admission-gate.js";
import type { DeliveryMessage } from "./delivery-message.js";
import type { DeliveryScheduler, Settlement } from "./delivery-scheduler.js";
import type { StoreDelivery } from "./deliveries-store.js";
import { isOrdered, type OrderedDelivery } from "./ordered-deliveries.js";

/**
 * How long a new event's delivery may wait in its hook's queue (its event's acknowledgement waits
 * for it); longer waits go to DELIVERIES. Long enough to ride out a pause of the whole process (a
 * burst's first seconds), which makes every lane look slow at once and would otherwise send most
 * of the burst through DELIVERIES.
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
const DIRECT_LIMITS = { waitBudgetMs: DIRECT_WAIT_BUDGET_MS, maxPaceMs: DIRECT_MAX_PACE_MS, heldBudget: DIRECT_HELD_BUDGET };

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

/**
 * One event in hand: settled (its message may be acknowledged) once each of its direct deliveries
 * is, failed when storing one in DELIVERIES failed.
 */
export class EventInHand {
  readonly message: EventMessage;
  readonly deliveryCount: number;
  /** As the event carried it ("" when it had none): the store falls back to the event id then. */
  readonly transactionId: string;
  readonly traceparent: string | undefined;
  readonly #store: StoreDelivery;
  /** Deliveries not settled yet. */
  #open: number;
  #failure: Error | undefined;
  readonly #resolve: () => void;
  readonly #reject: (error: Error) => void;

  constructor(message: EventMessage, deliveries: number, store: StoreDelivery, resolve: () => void, reject: (error: Error) => void) {
    this.message = message;
    this.deliveryCount = message.info.deliveryCount;
    this.transactionId = message.headers?.get(TRANSACTION_ID_NATS_HEADER) || "";
    // This consumer's hop (its span when tracing), so the deliveries continue from it.
    this.traceparent = currentContext()?.traceparent ?? (message.headers?.get(TRACEPARENT_HEADER) || undefined);
    this.#store = store;
    this.#open = deliveries;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** A delivery is recorded: nothing of it is left to this event. */
  delivered(): void {
    this.#settled();
  }

  /**
   * A delivery goes to DELIVERIES, undelayed: a recorded attempt names its next due time, which
   * that consumer reads before it attempts again.
   */
  store(delivery: DeliveryMessage): void {
    this.#store(delivery, { transactionId: this.transactionId, traceparent: this.traceparent }).then(
      () => this.#settled(),
      (error: Error) => this.#settled(error),
    );
  }

  #settled(error?: Error): void {
    this.#failure ??= error;
    if (--this.#open > 0) return;
    if (this.#failure) this.#reject(this.#failure);
    else this.#resolve();
  }
}

/**
 * Where a direct delivery is: `queued` in its lane (it holds a place of the gate), `running`, or
 * `settled` (recorded or handed on to DELIVERIES). Settled once only, whatever the scheduler calls
 * after; leaving the queue, by starting or by being handed back from it, frees its gate place.
 */
export type DirectDeliveryState = "queued" | "running" | "settled";

/** How the scheduler settles a new event's delivery: a hand-back stores it in DELIVERIES, whose consumer decides anew. */
export class DirectSettlement implements Settlement {
  readonly keepsDelay = false;
  #state: DirectDeliveryState = "queued";
  readonly #delivery: DeliveryMessage;
  readonly #event: EventInHand;
  readonly #gate: AdmissionGate;

  constructor(delivery: DeliveryMessage, event: EventInHand, gate: AdmissionGate) {
    this.#delivery = delivery;
    this.#event = event;
    this.#gate = gate;
    gate.queued();
  }

  get state(): DirectDeliveryState {
    return this.#state;
  }

  get deliveryCount(): number {
    return this.#event.deliveryCount;
  }

  get transactionId(): string | undefined {
    return this.#event.transactionId || undefined;
  }

  get traceparent(): string | undefined {
    return this.#event.traceparent;
  }

  started(): void {
    if (this.#state !== "queued") return;
    this.#state = "running";
    this.#gate.started();
  }

  ack(): void {
    if (this.#settle()) this.#event.delivered();
  }

  handBack(): void {
    if (this.#settle()) this.#event.store(this.#delivery);
  }

  working(): void {
    this.#event.message.working();
  }

  /** Whether this call settles it (false once it is settled). */
  #settle(): boolean {
    this.started();
    if (this.#state === "settled") return false;
    this.#state = "settled";
    return true;
  }
}

export function createEventDeliveries(deps: EventDeliveriesDeps, waitingMax = DIRECT_WAITING_MAX): EventDeliveries {
  const { scheduler, store } = deps;
  const gate = new AdmissionGate(waitingMax);

  /** The ordered deliveries at the head of their queue now (the rest wait their turn there), with the unordered ones. */
  const headsAndUnordered = async (deliveries: DeliveryMessage[]): Promise<DeliveryMessage[]> => {
    const heads = await Promise.all(deliveries.map((d) => (isOrdered(d) ? deps.enqueueOrdered(d) : true)));
    return deliveries.filter((_, i) => heads[i]);
  };

  /** Submits each delivery with its settlement; the promise settles once all of them are. */
  const submitAll = (message: EventMessage, deliveries: DeliveryMessage[]): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const event = new EventInHand(message, deliveries.length, store, resolve, reject);
      for (const delivery of deliveries) scheduler.submit({ delivery, settle: new DirectSettlement(delivery, event, gate) }, DIRECT_LIMITS);
    });

  function deliver(message: EventMessage, all: DeliveryMessage[]): Promise<void> {
    gate.fanOut(all.length);
    if (all.length === 0) return Promise.resolve();
    // Nothing ordered (the common case): submitted in this turn, without a queue to wait for.
    if (!all.some(isOrdered)) return submitAll(message, all);
    return headsAndUnordered(all).then((due) => (due.length === 0 ? undefined : submitAll(message, due)));
  }

  return {
    deliver,
    // Plain functions: the consumer is given `admit` on its own.
    admit: () => gate.admit(),
    release: () => gate.taken(),
  };
}
