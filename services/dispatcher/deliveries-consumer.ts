// The DELIVERIES consumer: takes hook × event deliveries from JetStream and attempts them, with
// bounded concurrency per hook and a circuit breaker per hook, so that one slow or dead receiver
// never holds back another hook's deliveries.
//
// - Every message is acknowledged or handed back promptly: retries wait in JetStream
//   (nak with the schedule's delay), not here. The consumer allows unlimited acks pending, so
//   a dead hook's waiting retries never exhaust a limit shared with the other hooks.
// - A hook's lane runs `perHook` deliveries at once and queues what lane-policy.ts allows: what
//   it is expected to finish within the ack wait, at most its share of DEFAULT_MAX_HELD (held
//   here, so a busy lane stays fed from memory: handing a healthy lane's backlog back to
//   JetStream left the lane idle while its deliveries waited out their delays). A stuck lane
//   queues two.
// - The pull loop never waits for any one hook: a message whose lane is full is handed back at
//   once (nak), paced so that it returns about when that lane has room.
// - The loop stops pulling while DEFAULT_MAX_HELD messages are held (running + queued, all
//   hooks). That wait stays short: healthy lanes free room at their pace, and every
//   SHED_INTERVAL_MS a lane that has turned slow or hangs hands back what it queued beyond its
//   new limit.
// - While a hook's breaker is open its deliveries are handed back until the breaker lets a trial
//   through (and the moment it opens, that hook's queue is handed back too). Those are not
//   attempts: nothing is recorded and the retry schedule does not move.
// - Held messages (running or queued) get `working()` heartbeats so JetStream does not redeliver
//   them while they wait their turn.
// - A disruption re-derives the admission state. After a reconnect (the server may have
//   restarted: the client dropped every ack, nak and heartbeat it sent while disconnected, and
//   the server redelivers what it had not seen acknowledged) the overflow pacer forgets its
//   reservations and the held deliveries get a heartbeat at once; they are still delivered from
//   memory, and a copy the server redelivers is recognised as already delivered. When the
//   durable itself was lost, or the pull stalled, what is queued is handed back instead.
import { DEFAULT_CONSUMER_ACK_WAIT_MS } from "@waybill/platform/config.js";
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { contextFrom, runInContext, TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import type { ConsumerHealth } from "@waybill/platform/consumer-health.js";
import { redeliveryDelayMs } from "@waybill/platform/consumer.js";
import { startDurableConsume } from "@waybill/platform/durable-consume.js";
import type { Logger } from "@waybill/platform/logger.js";
import { TRANSACTION_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import { createBreakerRegistry, type BreakerRegistry } from "./circuit-breaker.js";
import type { AttemptOutcome, Deliverer } from "./delivery.js";
import { parseDeliveryMessage, type DeliveryMessage } from "./delivery-message.js";
import { createHookLanes } from "./hook-lanes.js";
import { MIN_QUEUE_PER_HOOK, paceOf, queueLimit, spreadDelay, type LaneStats } from "./lane-policy.js";
import { createOverflowPacer } from "./overflow-pacer.js";

export const DELIVERIES_CONSUMER = "dispatcher-deliveries";
/** Held messages are marked as in progress this often (and at least three times per ack wait). */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const DELIVERIES_PULL_BATCH = 256;
/** Messages held at once (running + queued, all hooks; about 1 KiB each); each busy hook may hold its share. */
export const DEFAULT_MAX_HELD = 32_768;
/** In-flight attempts get this long to finish at shutdown before they are aborted and handed back. */
export const SHUTDOWN_GRACE_MS = 5_000;
export const FAILURE_DELAY_MAX_MS = 30_000;
/** How often lanes are checked for a queue beyond their present limit (a receiver turned slow). */
export const SHED_INTERVAL_MS = 250;

export type DeferReason = "lane full" | "breaker open" | "not due" | "failure";

export interface DeliveriesConsumerOptions {
  bus: Bus;
  deliverer: Deliverer;
  logger: Logger;
  perHook: number;
  /** The consumer's ack wait (CONSUMER_ACK_WAIT_MS); DEFAULT_CONSUMER_ACK_WAIT_MS unless given. */
  ackWaitMs?: number;
  maxHeld?: number;
  breakers?: BreakerRegistry;
  random?: () => number;
  onOutcome?(outcome: AttemptOutcome): void;
  onDeferred?(reason: DeferReason): void;
  /** Where the consumer's progress is watched (stall → /readyz red, metric). */
  health?: ConsumerHealth;
}

export interface RunningDeliveriesConsumer {
  stop(): Promise<void>;
}

interface Held {
  msg: JsMsg;
  delivery: DeliveryMessage;
}

export async function startDeliveriesConsumer(options: DeliveriesConsumerOptions): Promise<RunningDeliveriesConsumer> {
  const { bus, deliverer, logger, perHook } = options;
  const random = options.random ?? Math.random;
  const breakers = options.breakers ?? createBreakerRegistry();
  const maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_CONSUMER_ACK_WAIT_MS;
  let admitting = false; // the lanes exist (a disruption during the start has nothing to release)
  const consume = await startDurableConsume({
    bus,
    stream: bus.topology.deliveriesStream,
    logger,
    maxMessages: DELIVERIES_PULL_BATCH,
    config: {
      durable_name: DELIVERIES_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: bus.topology.deliveriesWildcard,
      ack_wait: nanos(ackWaitMs),
      max_ack_pending: -1,
      max_deliver: -1,
    },
    onDisruption: (reason) => {
      if (!admitting) return;
      // The durable the deliveries came from is gone: they mean nothing to the new one.
      if (reason === "consumer gone") releaseAdmission(reason);
      else rederiveAdmission(reason);
    },
  });
  const messages = consume.messages;
  const shutdown = new AbortController();
  let stopping = false;
  /**
   * Messages settled by a decision so far: attempted (or found not due, dropped, refused by an
   * open breaker) and acked or nak'ed, or terminated. The health watch's sign of progress;
   * hand-backs for want of room in a lane are not progress.
   */
  let settled = 0;

  const defer = (msg: JsMsg, delayMs: number, reason: DeferReason) => {
    options.onDeferred?.(reason);
    msg.nak(Math.max(0, Math.round(delayMs)));
  };

  let pacer = createOverflowPacer();
  /**
   * After a reconnect (the server may have restarted and rolled back its view): what the lanes
   * hold is still work to do, and doing it from memory is the fastest way through (the naks of a
   * handed-back delivery may be ignored by a restarted server, which then waits out the ack
   * wait). Its acks settle whichever delivery the server has now, and a copy it redelivers is
   * recognised as already delivered. What is re-derived: the pacer's reservations, made for
   * hand-backs whose naks the client dropped while disconnected, and the heartbeats (resumed).
   */
  function rederiveAdmission(reason: string): void {
    pacer = createOverflowPacer();
    for (const held of lanes.held()) held.msg.working();
    logger.warn({ reason, held: lanes.heldCount() }, "deliveries consumer disrupted; pacing reset, held deliveries kept");
  }
  /** Drops what was admitted on deliveries of a consumer that is gone, or of a stalled pull. */
  function releaseAdmission(reason: string): void {
    const queued = lanes.drainQueued();
    for (const held of queued) held.msg.nak();
    pacer = createOverflowPacer();
    logger.warn({ reason, released: queued.length, running: lanes.heldCount() }, "deliveries consumer disrupted; queued deliveries handed back");
  }
  const lanes = createHookLanes<Held>({ perHook, queuePerHook: MIN_QUEUE_PER_HOOK, run: (_hookId, held) => process(held) });

  async function process(held: Held): Promise<void> {
    try {
      await attempt(held);
    } finally {
      settled += 1;
    }
  }

  async function attempt({ msg, delivery }: Held): Promise<void> {
    if (stopping) return msg.nak();
    const breaker = breakers.get(delivery.hookId);
    const admission = breaker.admit();
    if (!admission.allowed) return defer(msg, spread(admission.retryInMs), "breaker open");
    let outcome: AttemptOutcome;
    try {
      const context = contextFrom(undefined, msg.headers?.get(TRANSACTION_ID_NATS_HEADER) || undefined, msg.headers?.get(TRACEPARENT_HEADER) || undefined);
      outcome = await runInContext(context, () => deliverer.attempt(delivery, shutdown.signal));
    } catch (error) {
      // A fault of ours (database away…), not the receiver's: no attempt was recorded.
      breaker.release();
      const delay = redeliveryDelayMs(msg.info.deliveryCount, FAILURE_DELAY_MAX_MS);
      logger.warn({ err: (error as Error).message, deliveryId: delivery.deliveryId, delay }, "delivery could not be attempted; will be redelivered");
      return defer(msg, delay, "failure");
    }
    options.onOutcome?.(outcome);
    switch (outcome.kind) {
      case "dropped":
        breaker.release();
        msg.ack();
        break;
      case "notYet":
        breaker.release();
        defer(msg, outcome.delayMs, "not due");
        break;
      case "aborted":
        breaker.release();
        msg.nak(); // another replica (or the next start) takes it at once
        break;
      case "attempted":
        if (outcome.receiverFault) {
          breaker.onFailure();
          const blockedFor = breaker.blockedForMs();
          // Just opened: what waits in this hook's queue would only be handed back one by one.
          if (blockedFor > 0) for (const queued of lanes.drainQueued(delivery.hookId)) defer(queued.msg, spread(blockedFor), "breaker open");
        } else breaker.onSuccess();
        if (outcome.retryInMs === null) msg.ack();
        else msg.nak(outcome.retryInMs);
        break;
    }
    if (lanes.backlog(delivery.hookId) <= 1) breakers.forgetIfHealthy(delivery.hookId);
  }

  admitting = true;

  const statsOf = (hookId: string): LaneStats => ({
    averageMs: lanes.averageMs(hookId),
    oldestRunningMs: lanes.oldestRunningMs(hookId),
    activeHooks: lanes.activeHooks(),
  });
  const spread = (delayMs: number) => spreadDelay(delayMs, random);

  const heartbeat = setInterval(
    () => {
      for (const held of lanes.held()) held.msg.working();
    },
    Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(ackWaitMs / 3)),
  );
  heartbeat.unref();

  // Not counted as settled: a lane that never finishes anything hands everything back for ever,
  // and that must show as a stall.
  const handBack = (hookId: string, items: Held[]) => {
    for (const held of items) defer(held.msg, pacer.delayFor(hookId, lanes.backlog(hookId), paceOf(statsOf(hookId)), perHook), "lane full");
  };
  // A lane whose receiver turned slow (or hangs) keeps only what its new pace allows: the rest
  // goes back to JetStream, so it holds no budget that other hooks are waiting for.
  const shedding = setInterval(() => {
    for (const hookId of lanes.hooksWithQueue()) handBack(hookId, lanes.shed(hookId, queueLimit(statsOf(hookId), perHook, maxHeld, ackWaitMs)));
  }, SHED_INTERVAL_MS);
  shedding.unref();

  const loop = (async () => {
    for await (const msg of messages) {
      if (stopping) {
        msg.nak(); // pulled but not started: back to the stream for the next consumer
        settled += 1;
        continue;
      }
      let delivery: DeliveryMessage;
      try {
        delivery = parseDeliveryMessage(msg.string());
      } catch (error) {
        logger.error({ err: (error as Error).message, subject: msg.subject }, "malformed delivery message dropped");
        msg.term();
        settled += 1;
        continue;
      }
      const blockedFor = breakers.get(delivery.hookId).blockedForMs();
      if (blockedFor > 0) {
        defer(msg, spread(blockedFor), "breaker open");
        settled += 1;
        continue;
      }
      const hookId = delivery.hookId;
      const held: Held = { msg, delivery };
      if (lanes.submit(hookId, held, queueLimit(statsOf(hookId), perHook, maxHeld, ackWaitMs)) === "full") handBack(hookId, [held]);
      await lanes.whenBelow(maxHeld);
    }
  })();

  const unwatch = options.health?.watch({
    name: DELIVERIES_CONSUMER,
    async sample() {
      const info = await consume.info();
      return {
        ackFloor: info.ack_floor.stream_seq,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        maxAckPending: -1,
        held: lanes.heldCount(),
        settled,
      };
    },
    onStall: () => {
      releaseAdmission("stalled");
      consume.restart("stalled");
    },
  });

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      unwatch?.();
      consume.stop();
      for (const held of lanes.drainQueued()) held.msg.nak();
      const grace = setTimeout(() => shutdown.abort(), SHUTDOWN_GRACE_MS);
      await lanes.idle();
      clearTimeout(grace);
      await loop.catch((error) => logger.warn({ err: (error as Error).message }, "deliveries consumer ended with an error"));
      clearInterval(heartbeat);
      clearInterval(shedding);
    },
  };
}
