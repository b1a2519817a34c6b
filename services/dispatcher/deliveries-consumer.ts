// The DELIVERIES consumer: takes hook × event deliveries from JetStream and attempts them, with
// bounded concurrency per hook and a circuit breaker per hook, so that one slow or dead receiver
// never holds back another hook's deliveries.
//
// - Every message is acknowledged or handed back promptly: retries wait in JetStream
//   (nak with the schedule's delay), not here. The consumer allows unlimited acks pending, so
//   a dead hook's waiting retries never exhaust a limit shared with the other hooks.
// - A hook's lane runs `perHook` deliveries at once and queues as many as lane-policy.ts allows:
//   thousands for a busy, healthy receiver (held here, so its lane stays fed without round trips
//   through JetStream), a few for a slow one, two for one that hangs.
// - The pull loop never waits for any one hook: a message whose lane cannot take it now is handed
//   back at once (nak), paced so that it returns about when that lane has room. Waiting for room
//   instead would make every hook's messages behind it wait at that hook's pace.
// - Memory stays bounded without stopping the loop either: beyond DEFAULT_MAX_HELD messages held
//   (running + queued, all hooks) nothing more is queued; a message is only taken if its lane can
//   start it at once, otherwise handed back like any other that does not fit.
// - While a hook's breaker is open its deliveries are handed back until the breaker lets a trial
//   through (and the moment it opens, that hook's queue is handed back too). Those are not
//   attempts: nothing is recorded and the retry schedule does not move.
// - Held messages (running or queued) get `working()` heartbeats so JetStream does not redeliver
//   them while they wait their turn.
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { contextFrom, runInContext } from "../platform/context.js";
import type { Logger } from "../platform/logger.js";
import { ensureConsumer, TRANSACTION_ID_NATS_HEADER, type Bus } from "../platform/nats.js";
import { createBreakerRegistry, type BreakerRegistry } from "./circuit-breaker.js";
import type { AttemptOutcome, Deliverer } from "./delivery.js";
import { parseDeliveryMessage, type DeliveryMessage } from "./delivery-message.js";
import { createHookLanes } from "./hook-lanes.js";
import { MIN_QUEUE_PER_HOOK, queueLimit, spreadDelay, type LaneStats } from "./lane-policy.js";
import { createOverflowPacer } from "./overflow-pacer.js";

export const DELIVERIES_CONSUMER = "dispatcher-deliveries";
export const DELIVERIES_ACK_WAIT_MS = 30_000;
/** Held messages are marked as in progress this often (and at least three times per ack wait). */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const DELIVERIES_PULL_BATCH = 256;
/** Messages held at once (running + queued, all hooks); each busy hook may hold its share of it. */
export const DEFAULT_MAX_HELD = 8192;
/** In-flight attempts get this long to finish at shutdown before they are aborted and handed back. */
export const SHUTDOWN_GRACE_MS = 5_000;
export const FAILURE_DELAY_MAX_MS = 30_000;

export type DeferReason = "lane full" | "breaker open" | "not due" | "failure";

export interface DeliveriesConsumerOptions {
  bus: Bus;
  deliverer: Deliverer;
  logger: Logger;
  perHook: number;
  /** The consumer's ack wait (DISPATCHER_ACK_WAIT_MS); DELIVERIES_ACK_WAIT_MS unless given. */
  ackWaitMs?: number;
  maxHeld?: number;
  breakers?: BreakerRegistry;
  random?: () => number;
  onOutcome?(outcome: AttemptOutcome): void;
  onDeferred?(reason: DeferReason): void;
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
  const ackWaitMs = options.ackWaitMs ?? DELIVERIES_ACK_WAIT_MS;
  const stream = bus.topology.deliveriesStream;
  await ensureConsumer(bus, stream, {
    durable_name: DELIVERIES_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: bus.topology.deliveriesWildcard,
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: -1,
    max_deliver: -1,
  });
  const consumer = await bus.js.consumers.get(stream, DELIVERIES_CONSUMER);
  const messages = await consumer.consume({ max_messages: DELIVERIES_PULL_BATCH });
  const shutdown = new AbortController();
  let stopping = false;

  const defer = (msg: JsMsg, delayMs: number, reason: DeferReason) => {
    options.onDeferred?.(reason);
    msg.nak(Math.max(0, Math.round(delayMs)));
  };

  const pacer = createOverflowPacer();
  const lanes = createHookLanes<Held>({ perHook, queuePerHook: MIN_QUEUE_PER_HOOK, run: (_hookId, held) => process(held) });

  async function process({ msg, delivery }: Held): Promise<void> {
    if (stopping) return msg.nak();
    const breaker = breakers.get(delivery.hookId);
    const admission = breaker.admit();
    if (!admission.allowed) return defer(msg, spread(admission.retryInMs), "breaker open");
    let outcome: AttemptOutcome;
    try {
      const context = contextFrom(undefined, msg.headers?.get(TRANSACTION_ID_NATS_HEADER) || undefined);
      outcome = await runInContext(context, () => deliverer.attempt(delivery, shutdown.signal));
    } catch (error) {
      // A fault of ours (database away…), not the receiver's: no attempt was recorded.
      breaker.release();
      const delay = Math.min(FAILURE_DELAY_MAX_MS, 500 * 2 ** Math.min(msg.info.deliveryCount, 10));
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

  const statsOf = (hookId: string): LaneStats => ({
    averageMs: lanes.averageMs(hookId),
    oldestRunningMs: lanes.oldestRunningMs(hookId),
    activeHooks: lanes.activeHooks(),
  });
  const spread = (delayMs: number) => spreadDelay(delayMs, random);

  const heartbeat = setInterval(() => {
    for (const held of lanes.held()) held.msg.working();
  }, Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(ackWaitMs / 3)));
  heartbeat.unref();

  const loop = (async () => {
    for await (const msg of messages) {
      if (stopping) {
        msg.nak(); // pulled but not started: back to the stream for the next consumer
        continue;
      }
      let delivery: DeliveryMessage;
      try {
        delivery = parseDeliveryMessage(msg.string());
      } catch (error) {
        logger.error({ err: (error as Error).message, subject: msg.subject }, "malformed delivery message dropped");
        msg.term();
        continue;
      }
      const blockedFor = breakers.get(delivery.hookId).blockedForMs();
      if (blockedFor > 0) {
        defer(msg, spread(blockedFor), "breaker open");
        continue;
      }
      const hookId = delivery.hookId;
      // Queue places for it: its lane's limit, none once the held budget is spent (it may still start).
      const limit = lanes.heldCount() < maxHeld ? queueLimit(statsOf(hookId), perHook, maxHeld) : 0;
      if (lanes.submit(hookId, { msg, delivery }, limit) === "full") {
        // A lane whose deliveries hang has no average yet: the age of its oldest one is its pace.
        const pace = Math.max(lanes.averageMs(hookId) ?? 0, lanes.oldestRunningMs(hookId)) || undefined;
        defer(msg, pacer.delayFor(hookId, lanes.backlog(hookId), pace, perHook), "lane full");
      }
    }
  })();

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      messages.stop();
      for (const held of lanes.drainQueued()) held.msg.nak();
      const grace = setTimeout(() => shutdown.abort(), SHUTDOWN_GRACE_MS);
      await lanes.idle();
      clearTimeout(grace);
      await loop.catch((error) => logger.warn({ err: (error as Error).message }, "deliveries consumer ended with an error"));
      clearInterval(heartbeat);
    },
  };
}
