// Where every delivery attempt is admitted and run: one lane per hook with bounded concurrency and
// one circuit breaker per hook, so that one slow or dead receiver never holds back another hook's
// deliveries. Two sources feed it: the DELIVERIES consumer (retries, re-deliveries, what overflowed)
// and the EVENTS consumer, which offers each new event's deliveries here directly (see
// event-deliveries.ts). A delivery carries how it is settled; the scheduler never knows which
// source it came from.
//
// - Every delivery is settled promptly: acknowledged when it needs nothing more, handed back with
//   a delay otherwise (a retry, a lane without room, an open breaker). Retries wait in JetStream,
//   not here.
// - A hook's lane runs `perHook` deliveries at once and queues what lane-policy.ts allows: what it
//   is expected to finish within the wait the source grants (HELD_HORIZON_MS for DELIVERIES, a short
//   budget for a new event, whose acknowledgement waits for its deliveries), at most its share of
//   `maxHeld`. A stuck lane queues two.
// - What a lane cannot take is handed back at once, paced so that it returns about when that lane
//   has room. Every SHED_INTERVAL_MS a lane that has turned slow or hangs hands back what it queued
//   beyond its new limit.
// - While a hook's breaker is open its deliveries are handed back until the breaker lets a trial
//   through, each one longer every time it finds the breaker open again (heldBackDelay), and the
//   moment it opens, that hook's queue is handed back too; one that would wait `parkAfterMs` or
//   longer is parked instead (parked-deliveries.ts). Those are not attempts: nothing is recorded
//   and the retry schedule does not move. A manual retry is the exception: it is sent now.
// - Held deliveries (running or queued) get `working()` heartbeats so JetStream does not redeliver
//   what they came from while they wait their turn.
import { contextFrom, runInContext } from "@waybill/platform/context.js";
import { redeliveryDelayMs } from "@waybill/platform/consumer.js";
import type { Logger } from "@waybill/platform/logger.js";
import { createBreakerRegistry, type BreakerRegistry } from "./circuit-breaker.js";
import type { AttemptOutcome, Deliverer } from "./delivery.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { createHookLanes, type HookLanes, type LanePlace } from "./hook-lanes.js";
import { deliverySpan, endDeliverySpan } from "./delivery-tracing.js";
import { heldBackDelay, MIN_QUEUE_PER_HOOK, paceOf, queueLimit, spreadDelay, type LaneStats } from "./lane-policy.js";
import { createOverflowPacer, type OverflowPacer } from "./overflow-pacer.js";
import { SlotSet } from "@waybill/platform/slot-set.js";

/** Held deliveries are marked as in progress this often (and at least three times per ack wait). */
export const HEARTBEAT_INTERVAL_MS = 10_000;
/** Deliveries held at once (running + queued, all hooks; about 1 KiB each); each busy hook may hold its share. */
export const DEFAULT_MAX_HELD = 32_768;
/** In-flight attempts get this long to finish at shutdown before they are aborted and handed back. */
export const SHUTDOWN_GRACE_MS = 5_000;
export const FAILURE_DELAY_MAX_MS = 30_000;
/**
 * How much work a lane may hold from DELIVERIES: what it is expected to finish within this long.
 * Heartbeats keep held messages from being redelivered, so this is not bound by the ack wait; it
 * is long enough that a busy but healthy hook whose pace was measured during a burst keeps its
 * backlog in hand instead of handing it back for minutes-long paced returns.
 */
export const HELD_HORIZON_MS = 300_000;
/** How often lanes are checked for a queue beyond their present limit (a receiver turned slow). */
export const SHED_INTERVAL_MS = 250;

export type DeferReason = "lane full" | "breaker open" | "not due" | "failure" | "parked";

/** How a held delivery is finished; the source (a DELIVERIES message, a new event) decides what that means. */
export interface Settlement {
  /** Nothing more to do for this delivery. */
  ack(): void;
  /** Try again later: after `delayMs` (0: at once, by whoever takes it next). */
  handBack(delayMs: number): void;
  /** Still being worked on (keeps what it came from from being redelivered). */
  working(): void;
  /** Its attempt begins: it has left its lane's queue. */
  started?(): void;
  /**
   * Kept aside until its hook answers again (parked-deliveries.ts) instead of being handed back;
   * only a source that can keep it offers this.
   */
  park?(): void;
  /**
   * Whether a hand-back's delay is kept (a nak'ed DELIVERIES message). A new event's delivery that
   * is handed back is stored in DELIVERIES at once instead, and that consumer decides anew: pacing
   * it here would reserve the lane's future slots for deliveries that do not wait for them.
   */
  keepsDelay: boolean;
  /** Deliveries of what it came from so far (1 the first time). */
  deliveryCount: number;
  transactionId?: string;
  traceparent?: string;
}

/**
 * A retry someone asked for (POST …/executions/{id}/retry "delivers that event again now"): its
 * hook's breaker does not hold it back; its outcome counts like any attempt's (a success closes
 * the breaker, and the hook's parked deliveries go back).
 */
function askedFor(delivery: DeliveryMessage): boolean {
  return delivery.trigger === "manual";
}

/** A delivery begun and not yet settled: its slot in `#finishing`, and the promise of its end. */
interface Finishing {
  held: HeldDelivery;
  whole: Promise<void> | undefined;
  slot: number;
}

export interface HeldDelivery {
  delivery: DeliveryMessage;
  settle: Settlement;
}

export interface DeliverySchedulerOptions {
  deliverer: Pick<Deliverer, "attempt">;
  logger: Logger;
  perHook: number;
  /** The DELIVERIES consumer's ack wait: held deliveries are heartbeated well within it. */
  ackWaitMs: number;
  maxHeld?: number;
  breakers?: BreakerRegistry;
  random?: () => number;
  onOutcome?(outcome: AttemptOutcome): void;
  onDeferred?(reason: DeferReason): void;
  /** A delivery that would wait this long or longer for its hook's breaker is parked, if its source can park it. */
  parkAfterMs?: number;
  /**
   * Whether a hook has parked deliveries already: one that finds its breaker open then joins them
   * at once (behind them, in order) instead of waiting for the wait to reach `parkAfterMs`.
   */
  hasParked?(hookId: string): boolean;
  /**
   * A delivery of a per-entity queue is finished (delivered, exhausted or dropped); runs before it
   * is acknowledged (the queue's next delivery is sent). When it fails, the delivery is handed
   * back, and its next attempt finds it done and finishes it again.
   */
  onFinished?(delivery: DeliveryMessage, trace: { transactionId?: string; traceparent?: string }): Promise<void>;
}

export interface DeliveryScheduler {
  /**
   * Admits a delivery, or hands it back at once (lane full, breaker open). `waitBudgetMs` is how
   * long it may wait in its lane's queue (HELD_HORIZON_MS unless given); `maxPaceMs`, when given,
   * hands it back instead when the hook's deliveries take longer than that; `heldBudget`, when
   * given, is the budget its hook's share of queue places is taken from (maxHeld unless given).
   */
  submit(held: HeldDelivery, limits?: { waitBudgetMs?: number; maxPaceMs?: number; heldBudget?: number }): void;
  /** Resolves once fewer than `count` deliveries are held. */
  whenBelow(count: number): Promise<void>;
  heldCount(): number;
  /** Deliveries settled by a decision so far (the health watch's sign of progress). */
  settledCount(): number;
  /** After a reconnect: forget pacing made for hand-backs that may have been dropped, heartbeat what is held. */
  rederive(reason: string): void;
  /** Hands back every queued (not running) delivery, e.g. of a consumer that is gone. */
  releaseQueued(reason: string): void;
  /** Stops admitting; queued deliveries are handed back, running ones get SHUTDOWN_GRACE_MS. */
  stop(): Promise<void>;
}

export function createDeliveryScheduler(options: DeliverySchedulerOptions): DeliveryScheduler {
  return new HookLaneScheduler(options);
}

/**
 * Where the scheduler is in its life. `running`: deliveries are admitted. `stopping` (for good):
 * whatever arrives or reaches the front of a lane is handed back at once, undelayed, for another
 * replica or the next start to take.
 */
export type SchedulerPhase = "running" | "stopping";

/**
 * The scheduler's state in named fields, and one method per transition: `submit` admits (or hands
 * back), `#start` takes a delivery out of its lane's queue, `#attempt` decides it, `#finish` and
 * `#defer` settle it, `#handBackOverflow` returns what a lane cannot hold, `#breakerOpened` and
 * `#shedSlowLanes` return what a lane should no longer hold, `releaseQueued` and
 * `stop` drain the queues.
 */
export class HookLaneScheduler implements DeliveryScheduler {
  #phase: SchedulerPhase = "running";
  /**
   * Deliveries settled by a decision (an attempt's end, or an open breaker at admission): the
   * health watch's sign of progress. Hand-backs for want of room are not counted: a lane that never
   * finishes anything hands everything back for ever, and that must show as a stall.
   */
  #settled = 0;
  /**
   * When each hook's next handed-back delivery should return. Replaced after a disruption: the
   * hand-backs it paced may have been lost with the connection, and their slots would only push
   * later ones further out.
   */
  #pacer: OverflowPacer = createOverflowPacer();
  /**
   * Deliveries begun and not yet settled, whether still in their lane or past it and being
   * recorded: they are heartbeated and awaited at shutdown like what runs in a lane.
   */
  readonly #finishing = new SlotSet<Finishing>();
  readonly #lanes: HookLanes<HeldDelivery>;
  readonly #breakers: BreakerRegistry;
  readonly #options: DeliverySchedulerOptions;
  readonly #random: () => number;
  readonly #maxHeld: number;
  /** Aborts the attempts still running when the shutdown grace ends. */
  readonly #shutdown = new AbortController();
  readonly #heartbeat: NodeJS.Timeout;
  readonly #shedding: NodeJS.Timeout;

  constructor(options: DeliverySchedulerOptions) {
    this.#options = options;
    this.#random = options.random ?? Math.random;
    this.#breakers = options.breakers ?? createBreakerRegistry();
    this.#maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD;
    this.#lanes = createHookLanes<HeldDelivery>({
      perHook: options.perHook,
      queuePerHook: MIN_QUEUE_PER_HOOK,
      run: (_hookId, held, place) => this.#start(held, place),
    });
    this.#heartbeat = setInterval(() => this.#heartbeatHeld(), Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(options.ackWaitMs / 3)));
    this.#heartbeat.unref();
    this.#shedding = setInterval(() => this.#shedSlowLanes(), SHED_INTERVAL_MS);
    this.#shedding.unref();
  }

  get phase(): SchedulerPhase {
    return this.#phase;
  }

  /** Admission: an open breaker or a slow hook hands the delivery back; otherwise its lane takes it if it has room. */
  submit(held: HeldDelivery, limits: { waitBudgetMs?: number; maxPaceMs?: number; heldBudget?: number } = {}): void {
    const { hookId } = held.delivery;
    if (this.#phase === "stopping") {
      held.settle.handBack(0);
      return;
    }
    const blockedFor = askedFor(held.delivery) ? 0 : this.#breakers.get(hookId).blockedForMs();
    if (blockedFor > 0) {
      this.#settled += 1;
      this.#holdBack(hookId, held.settle, blockedFor);
      return;
    }
    const stats = this.#statsOf(hookId);
    const tooSlow = limits.maxPaceMs !== undefined && (paceOf(stats) ?? 0) > limits.maxPaceMs;
    const limit = queueLimit(stats, this.#options.perHook, limits.heldBudget ?? this.#maxHeld, limits.waitBudgetMs ?? HELD_HORIZON_MS);
    if (tooSlow || this.#lanes.submit(hookId, held, limit) === "full") this.#handBackOverflow(hookId, held);
  }

  whenBelow(count: number): Promise<void> {
    return this.#lanes.whenBelow(count);
  }

  heldCount(): number {
    return this.#lanes.heldCount();
  }

  settledCount(): number {
    return this.#settled;
  }

  rederive(reason: string): void {
    this.#pacer = createOverflowPacer();
    this.#heartbeatHeld();
    this.#options.logger.warn({ reason, held: this.#lanes.heldCount() }, "deliveries disrupted; pacing reset, held deliveries kept");
  }

  releaseQueued(reason: string): void {
    const queued = this.#lanes.drainQueued();
    for (const held of queued) held.settle.handBack(0);
    this.#pacer = createOverflowPacer();
    this.#options.logger.warn({ reason, released: queued.length, running: this.#lanes.heldCount() }, "deliveries disrupted; queued deliveries handed back");
  }

  async stop(): Promise<void> {
    if (this.#phase === "stopping") return;
    this.#phase = "stopping";
    for (const held of this.#lanes.drainQueued()) held.settle.handBack(0);
    const grace = setTimeout(() => this.#shutdown.abort(), SHUTDOWN_GRACE_MS);
    await this.#lanes.idle();
    await Promise.allSettled(this.#finishing.values().map((finishing) => finishing.whole));
    clearTimeout(grace);
    clearInterval(this.#heartbeat);
    clearInterval(this.#shedding);
  }

  /**
   * A delivery leaves its lane's queue and is attempted. Its lane place is freed as soon as the
   * receiver has answered (or the delivery needed no request): per-hook concurrency bounds the
   * requests a receiver has in flight, and holding the place while the attempt is recorded (a
   * batched statement and its commit) would leave the receiver idle for that long. What follows,
   * the record and the settlement, continues in `#finishing`.
   */
  #start(held: HeldDelivery, place: LanePlace): void {
    held.settle.started?.();
    const finishing: Finishing = { held, whole: undefined, slot: -1 };
    finishing.slot = this.#finishing.add(finishing);
    finishing.whole = this.#attempt(finishing, place);
  }

  /**
   * Decides one delivery: its breaker's admission, the attempt, then the settlement its outcome
   * calls for; then, whatever happened, counts it settled and frees its lane place. That last
   * part is this function's own `finally`, not callbacks on its promise: per delivery, each of
   * those was a closure and a promise more.
   */
  async #attempt(finishing: Finishing, place: LanePlace): Promise<void> {
    const { held } = finishing;
    try {
      const { settle, delivery } = held;
      if (this.#phase === "stopping") return settle.handBack(0);
      const { deliverer, logger } = this.#options;
      const breaker = this.#breakers.get(delivery.hookId);
      // A retry someone asked for goes out now, without the breaker's admission; its outcome still counts.
      const forced = askedFor(delivery);
      if (!forced) {
        const admission = breaker.admit();
        if (!admission.allowed) return this.#holdBack(delivery.hookId, settle, admission.retryInMs);
      }
      let outcome: AttemptOutcome;
      const span = deliverySpan(logger, delivery, settle.traceparent);
      try {
        const context = contextFrom(undefined, settle.transactionId, settle.traceparent, span);
        outcome = await runInContext(context, () => deliverer.attempt(delivery, this.#shutdown.signal, place));
        endDeliverySpan(span, outcome);
      } catch (error) {
        endDeliverySpan(span, undefined, error);
        // A fault of ours (database away…), not the receiver's: no attempt was recorded.
        if (!forced) breaker.release();
        const delay = redeliveryDelayMs(settle.deliveryCount, FAILURE_DELAY_MAX_MS);
        logger.warn({ err: (error as Error).message, deliveryId: delivery.deliveryId, delay }, "delivery could not be attempted; will be redelivered");
        return this.#defer(settle, delay, "failure");
      }
      this.#options.onOutcome?.(outcome);
      switch (outcome.kind) {
        case "dropped": {
          if (!forced) breaker.release();
          const ordered = this.#finish(held);
          if (ordered) await ordered;
          break;
        }
        case "notYet":
          if (!forced) breaker.release();
          this.#defer(settle, outcome.delayMs, "not due");
          break;
        case "aborted":
          if (!forced) breaker.release();
          settle.handBack(0); // another replica (or the next start) takes it at once
          break;
        case "attempted":
          if (outcome.receiverFault) {
            breaker.onFailure();
            const blockedFor = breaker.blockedForMs();
            if (blockedFor > 0) this.#breakerOpened(delivery.hookId, blockedFor);
          } else breaker.onSuccess();
          if (outcome.retryInMs === null) {
            const ordered = this.#finish(held);
            if (ordered) await ordered;
          } else settle.handBack(outcome.retryInMs);
          break;
      }
      if (this.#lanes.backlog(delivery.hookId) <= 1) this.#breakers.forgetIfHealthy(delivery.hookId);
    } catch (error) {
      // The attempt's own failures are handled above; what escapes (a settlement that threw) is
      // logged rather than left unhandled.
      this.#options.logger.error({ err: (error as Error)?.message, deliveryId: held.delivery.deliveryId }, "delivery settlement failed");
    } finally {
      this.#settled += 1;
      this.#finishing.delete(finishing.slot);
      place.free();
    }
  }

  /**
   * Nothing more to do for this delivery: acknowledged, at once, or, when it has a per-entity
   * queue, once that queue has moved on (the promise then returned).
   */
  #finish(held: HeldDelivery): Promise<void> | undefined {
    if (held.delivery.entity && this.#options.onFinished) return this.#finishOrdered(held, this.#options.onFinished);
    held.settle.ack();
    return undefined;
  }

  async #finishOrdered({ settle, delivery }: HeldDelivery, onFinished: NonNullable<DeliverySchedulerOptions["onFinished"]>): Promise<void> {
    try {
      await onFinished(delivery, { transactionId: settle.transactionId, traceparent: settle.traceparent });
    } catch (error) {
      const delay = redeliveryDelayMs(settle.deliveryCount, FAILURE_DELAY_MAX_MS);
      this.#options.logger.warn(
        { err: (error as Error).message, deliveryId: delivery.deliveryId, delay },
        "ordered delivery could not move its queue on; will be redelivered",
      );
      return this.#defer(settle, delay, "failure");
    }
    settle.ack();
  }

  /** Hands a delivery back to try later, counted as deferred for `reason`. */
  #defer(settle: Settlement, delayMs: number, reason: DeferReason): void {
    this.#options.onDeferred?.(reason);
    settle.handBack(Math.max(0, Math.round(delayMs)));
  }

  /**
   * A delivery that found its hook's breaker open: handed back until the breaker lets one through,
   * longer each time it comes back to it (heldBackDelay), or parked once that wait would reach
   * `parkAfterMs` or its hook has parked deliveries already. Without the latter, every delivery
   * that arrived while the breaker waited came back at its next trial and was parked in the same
   * few seconds: a burst of thousands of parkings every breaker period, which the 2-hour soak saw
   * as a p99 spike of every other request.
   */
  #holdBack(hookId: string, settle: Settlement, blockedForMs: number): void {
    const delay = this.#spread(heldBackDelay(blockedForMs, settle.deliveryCount));
    const { parkAfterMs, onDeferred, hasParked } = this.#options;
    if (settle.park && parkAfterMs !== undefined && (delay >= parkAfterMs || hasParked?.(hookId) === true)) {
      onDeferred?.("parked");
      settle.park();
      return;
    }
    this.#defer(settle, delay, "breaker open");
  }

  /**
   * Hands back a delivery its hook's lane cannot hold, paced to return about when the lane has room
   * (overflow-pacer.ts), unless its source does not keep the delay.
   */
  #handBackOverflow(hookId: string, held: HeldDelivery): void {
    const delay = held.settle.keepsDelay ? this.#pacer.delayFor(hookId, this.#lanes.backlog(hookId), paceOf(this.#statsOf(hookId)), this.#options.perHook) : 0;
    this.#defer(held.settle, delay, "lane full");
  }

  /** A hook's breaker has just opened: what waits in its queue would only be handed back one by one as it came up. */
  #breakerOpened(hookId: string, blockedForMs: number): void {
    for (const queued of this.#lanes.drainQueued(hookId)) {
      if (askedFor(queued.delivery)) this.submit(queued);
      else this.#holdBack(hookId, queued.settle, blockedForMs);
    }
  }

  /**
   * A lane whose receiver turned slow (or hangs) keeps only what its new pace allows: the rest goes
   * back to JetStream, so that it holds no budget other hooks are waiting for.
   */
  #shedSlowLanes(): void {
    const { perHook } = this.#options;
    for (const hookId of this.#lanes.hooksWithQueue()) {
      const keep = queueLimit(this.#statsOf(hookId), perHook, this.#maxHeld, HELD_HORIZON_MS);
      for (const held of this.#lanes.shed(hookId, keep)) this.#handBackOverflow(hookId, held);
    }
  }

  /** Marks every held delivery as in progress, so that JetStream does not redeliver what it came from while it waits its turn. */
  #heartbeatHeld(): void {
    const held = new Set([...this.#lanes.held(), ...this.#finishing.values().map((finishing) => finishing.held)]);
    for (const { settle } of held) settle.working();
  }

  #statsOf(hookId: string): LaneStats {
    return { averageMs: this.#lanes.averageMs(hookId), stalledMs: this.#lanes.stalledMs(hookId), activeHooks: this.#lanes.activeHooks() };
  }

  #spread(delayMs: number): number {
    return spreadDelay(delayMs, this.#random);
  }
}
