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
//   through (and the moment it opens, that hook's queue is handed back too). Those are not
//   attempts: nothing is recorded and the retry schedule does not move.
// - Held deliveries (running or queued) get `working()` heartbeats so JetStream does not redeliver
//   what they came from while they wait their turn.
import { contextFrom, runInContext } from "@waybill/platform/context.js";
import { redeliveryDelayMs } from "@waybill/platform/consumer.js";
import type { Logger } from "@waybill/platform/logger.js";
import { createBreakerRegistry, type BreakerRegistry } from "./circuit-breaker.js";
import type { AttemptOutcome, Deliverer } from "./delivery.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { createHookLanes } from "./hook-lanes.js";
import { deliverySpan, endDeliverySpan } from "./delivery-tracing.js";
import { MIN_QUEUE_PER_HOOK, paceOf, queueLimit, spreadDelay, type LaneStats } from "./lane-policy.js";
import { createOverflowPacer } from "./overflow-pacer.js";

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

export type DeferReason = "lane full" | "breaker open" | "not due" | "failure";

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

export interface HeldDelivery {
  delivery: DeliveryMessage;
  settle: Settlement;
}

export interface DeliverySchedulerOptions {
  deliverer: Deliverer;
  logger: Logger;
  perHook: number;
  /** The DELIVERIES consumer's ack wait: held deliveries are heartbeated well within it. */
  ackWaitMs: number;
  maxHeld?: number;
  breakers?: BreakerRegistry;
  random?: () => number;
  onOutcome?(outcome: AttemptOutcome): void;
  onDeferred?(reason: DeferReason): void;
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
  const { deliverer, logger, perHook, ackWaitMs } = options;
  const random = options.random ?? Math.random;
  const breakers = options.breakers ?? createBreakerRegistry();
  const maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD;
  const shutdown = new AbortController();
  let stopping = false;
  let settled = 0;
  let pacer = createOverflowPacer();

  const defer = (settle: Settlement, delayMs: number, reason: DeferReason) => {
    options.onDeferred?.(reason);
    settle.handBack(Math.max(0, Math.round(delayMs)));
  };
  /** Deliveries begun and not yet settled, whether still in their lane or only being recorded. */
  const finishing = new Map<HeldDelivery, Promise<void>>();
  /** Everything held: queued or running in a lane, or past it and not yet settled. */
  const allHeld = () => new Set([...lanes.held(), ...finishing.keys()]);
  const lanes = createHookLanes<HeldDelivery>({ perHook, queuePerHook: MIN_QUEUE_PER_HOOK, run: (_hookId, held) => runHeld(held) });
  const statsOf = (hookId: string): LaneStats => ({
    averageMs: lanes.averageMs(hookId),
    stalledMs: lanes.stalledMs(hookId),
    activeHooks: lanes.activeHooks(),
  });
  const spread = (delayMs: number) => spreadDelay(delayMs, random);
  // Not counted as settled: a lane that never finishes anything hands everything back for ever,
  // and that must show as a stall.
  const handBack = (hookId: string, items: HeldDelivery[]) => {
    for (const held of items) {
      const delay = held.settle.keepsDelay ? pacer.delayFor(hookId, lanes.backlog(hookId), paceOf(statsOf(hookId)), perHook) : 0;
      defer(held.settle, delay, "lane full");
    }
  };

  /**
   * Runs one delivery in its lane, and frees the lane's place as soon as the receiver has answered
   * (or the delivery needed no request): per-hook concurrency bounds the requests a receiver has
   * in flight, and holding the place while the attempt is recorded (a batched statement and its
   * commit, about as long as the POST itself on loopback) cut what a hook could receive by a third
   * (bench:webhooks). What follows, the record and the settlement, runs outside the lane,
   * heartbeated and awaited at shutdown like what runs in it.
   */
  function runHeld(held: HeldDelivery): Promise<void> {
    held.settle.started?.();
    return new Promise<void>((freePlace) => {
      const whole = attempt(held, freePlace).finally(() => {
        settled += 1;
        finishing.delete(held);
        freePlace();
      });
      finishing.set(held, whole);
    });
  }

  /** Nothing more to do for this delivery: acknowledged (after its queue moves on, if it has one). */
  async function finish({ settle, delivery }: HeldDelivery): Promise<void> {
    if (delivery.entity && options.onFinished) {
      try {
        await options.onFinished(delivery, { transactionId: settle.transactionId, traceparent: settle.traceparent });
      } catch (error) {
        const delay = redeliveryDelayMs(settle.deliveryCount, FAILURE_DELAY_MAX_MS);
        logger.warn(
          { err: (error as Error).message, deliveryId: delivery.deliveryId, delay },
          "ordered delivery could not move its queue on; will be redelivered",
        );
        return defer(settle, delay, "failure");
      }
    }
    settle.ack();
  }

  async function attempt(held: HeldDelivery, sent: () => void): Promise<void> {
    const { settle, delivery } = held;
    if (stopping) return settle.handBack(0);
    const breaker = breakers.get(delivery.hookId);
    const admission = breaker.admit();
    if (!admission.allowed) return defer(settle, spread(admission.retryInMs), "breaker open");
    let outcome: AttemptOutcome;
    const span = deliverySpan(logger, delivery, settle.traceparent);
    try {
      const context = contextFrom(undefined, settle.transactionId, settle.traceparent, span);
      outcome = await runInContext(context, () => deliverer.attempt(delivery, shutdown.signal, sent));
      endDeliverySpan(span, outcome);
    } catch (error) {
      endDeliverySpan(span, undefined, error);
      // A fault of ours (database away…), not the receiver's: no attempt was recorded.
      breaker.release();
      const delay = redeliveryDelayMs(settle.deliveryCount, FAILURE_DELAY_MAX_MS);
      logger.warn({ err: (error as Error).message, deliveryId: delivery.deliveryId, delay }, "delivery could not be attempted; will be redelivered");
      return defer(settle, delay, "failure");
    }
    options.onOutcome?.(outcome);
    switch (outcome.kind) {
      case "dropped":
        breaker.release();
        await finish(held);
        break;
      case "notYet":
        breaker.release();
        defer(settle, outcome.delayMs, "not due");
        break;
      case "aborted":
        breaker.release();
        settle.handBack(0); // another replica (or the next start) takes it at once
        break;
      case "attempted":
        if (outcome.receiverFault) {
          breaker.onFailure();
          const blockedFor = breaker.blockedForMs();
          // Just opened: what waits in this hook's queue would only be handed back one by one.
          if (blockedFor > 0) for (const queued of lanes.drainQueued(delivery.hookId)) defer(queued.settle, spread(blockedFor), "breaker open");
        } else breaker.onSuccess();
        if (outcome.retryInMs === null) await finish(held);
        else settle.handBack(outcome.retryInMs);
        break;
    }
    if (lanes.backlog(delivery.hookId) <= 1) breakers.forgetIfHealthy(delivery.hookId);
  }

  const heartbeat = setInterval(
    () => {
      for (const held of allHeld()) held.settle.working();
    },
    Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(ackWaitMs / 3)),
  );
  heartbeat.unref();
  // A lane whose receiver turned slow (or hangs) keeps only what its new pace allows: the rest
  // goes back to JetStream, so it holds no budget that other hooks are waiting for.
  const shedding = setInterval(() => {
    for (const hookId of lanes.hooksWithQueue()) handBack(hookId, lanes.shed(hookId, queueLimit(statsOf(hookId), perHook, maxHeld, HELD_HORIZON_MS)));
  }, SHED_INTERVAL_MS);
  shedding.unref();

  return {
    submit(held, limits = {}) {
      const { hookId } = held.delivery;
      if (stopping) return held.settle.handBack(0);
      const blockedFor = breakers.get(hookId).blockedForMs();
      if (blockedFor > 0) {
        settled += 1;
        return defer(held.settle, spread(blockedFor), "breaker open");
      }
      const stats = statsOf(hookId);
      if (limits.maxPaceMs !== undefined && (paceOf(stats) ?? 0) > limits.maxPaceMs) return handBack(hookId, [held]);
      const limit = queueLimit(stats, perHook, limits.heldBudget ?? maxHeld, limits.waitBudgetMs ?? HELD_HORIZON_MS);
      if (lanes.submit(hookId, held, limit) === "full") handBack(hookId, [held]);
    },
    whenBelow: (count) => lanes.whenBelow(count),
    heldCount: () => lanes.heldCount(),
    settledCount: () => settled,
    rederive(reason) {
      pacer = createOverflowPacer();
      for (const held of allHeld()) held.settle.working();
      logger.warn({ reason, held: lanes.heldCount() }, "deliveries disrupted; pacing reset, held deliveries kept");
    },
    releaseQueued(reason) {
      const queued = lanes.drainQueued();
      for (const held of queued) held.settle.handBack(0);
      pacer = createOverflowPacer();
      logger.warn({ reason, released: queued.length, running: lanes.heldCount() }, "deliveries disrupted; queued deliveries handed back");
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      for (const held of lanes.drainQueued()) held.settle.handBack(0);
      const grace = setTimeout(() => shutdown.abort(), SHUTDOWN_GRACE_MS);
      await lanes.idle();
      await Promise.allSettled([...finishing.values()]);
      clearTimeout(grace);
      clearInterval(heartbeat);
      clearInterval(shedding);
    },
  };
}
