// The DELIVERIES consumer: takes hook × event deliveries from JetStream (retries, manual and
// recovery re-deliveries, and what a new event's direct attempt could not take: see
// event-deliveries.ts) and hands them to the delivery scheduler, whose lanes and breakers keep one
// slow or dead receiver from holding back another hook.
//
// - A message is acknowledged or handed back (nak with a delay) promptly; retries wait in
//   JetStream, not here. The consumer allows unlimited acks pending, so a dead hook's waiting
//   retries never exhaust a limit shared with the other hooks.
// - The pull loop stops pulling while the scheduler holds DEFAULT_MAX_HELD deliveries.
// - A disruption re-derives the admission state. After a reconnect (the server may have
//   restarted: the client dropped every ack, nak and heartbeat it sent while disconnected, and the
//   server redelivers what it had not seen acknowledged) the pacing is forgotten and the held
//   deliveries get a heartbeat at once; they are still delivered from memory, and a copy the
//   server redelivers is recognised as already delivered. When the durable itself was lost, or the
//   pull stalled, what is queued is handed back instead.
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { DEFAULT_CONSUMER_ACK_WAIT_MS } from "@waybill/platform/config.js";
import { TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import type { ConsumerHealth } from "@waybill/platform/consumer-health.js";
import { startDurableConsume } from "@waybill/platform/durable-consume.js";
import type { Logger } from "@waybill/platform/logger.js";
import { TRANSACTION_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import { deliveriesStreamName } from "./deliveries-stream.js";
import { parseDeliveryMessage, type DeliveryMessage } from "./delivery-message.js";
import { DEFAULT_MAX_HELD, type DeliveryScheduler, type Settlement } from "./delivery-scheduler.js";
import type { Parked } from "./parked-deliveries.js";

export const DELIVERIES_CONSUMER = "dispatcher-deliveries";
export const DELIVERIES_PULL_BATCH = 256;

export interface DeliveriesConsumerOptions {
  bus: Bus;
  scheduler: DeliveryScheduler;
  logger: Logger;
  /** The consumer's ack wait (CONSUMER_ACK_WAIT_MS); DEFAULT_CONSUMER_ACK_WAIT_MS unless given. */
  ackWaitMs?: number;
  maxHeld?: number;
  /** Where the consumer's progress is watched (stall → /readyz red, metric). */
  health?: ConsumerHealth;
  /** Parks a delivery whose hook's receiver stays down (parked-deliveries.ts); without it, none is parked. */
  park?: ParkDelivery;
}

export type ParkDelivery = (parked: Parked) => Promise<void>;

export interface RunningDeliveriesConsumer {
  stop(): Promise<void>;
}

/** If parking fails (the database away), the message comes back this much later instead. */
export const PARK_FAILED_DELAY_MS = 60_000;

/**
 * How a DELIVERIES message is settled: ack, nak with a delay, in-progress heartbeats, and, given
 * `park`, parking (acknowledged once the parked delivery is stored).
 */
export function messageSettlement(msg: JsMsg, delivery?: DeliveryMessage, park?: ParkDelivery, logger?: Logger): Settlement {
  const transactionId = msg.headers?.get(TRANSACTION_ID_NATS_HEADER) || undefined;
  const traceparent = msg.headers?.get(TRACEPARENT_HEADER) || undefined;
  return {
    ack: () => msg.ack(),
    handBack: (delayMs) => msg.nak(delayMs),
    working: () => msg.working(),
    keepsDelay: true,
    deliveryCount: msg.info.deliveryCount,
    transactionId,
    traceparent,
    ...(park && delivery
      ? {
          park: () => {
            park({ delivery, transactionId, traceparent }).then(
              () => msg.ack(),
              (error: Error) => {
                logger?.warn({ err: error.message, deliveryId: delivery.deliveryId }, "delivery could not be parked; it comes back later");
                msg.nak(PARK_FAILED_DELAY_MS);
              },
            );
          },
        }
      : {}),
  };
}

export async function startDeliveriesConsumer(options: DeliveriesConsumerOptions): Promise<RunningDeliveriesConsumer> {
  const { bus, scheduler, logger } = options;
  const maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD;
  const ackWaitMs = options.ackWaitMs ?? DEFAULT_CONSUMER_ACK_WAIT_MS;
  let admitting = false; // the scheduler takes from this consumer (a disruption during the start has nothing to release)
  const consume = await startDurableConsume({
    bus,
    stream: deliveriesStreamName(bus.topology),
    logger,
    maxMessages: DELIVERIES_PULL_BATCH,
    config: {
      durable_name: DELIVERIES_CONSUMER,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: undefined, // the whole stream, and an earlier filter cleared (platform/nats-filters.ts)
      ack_wait: nanos(ackWaitMs),
      max_ack_pending: -1,
      max_deliver: -1,
    },
    onDisruption: (reason) => {
      if (!admitting) return;
      // The durable the deliveries came from is gone: they mean nothing to the new one.
      if (reason === "consumer gone") scheduler.releaseQueued(reason);
      else scheduler.rederive(reason);
    },
  });
  let stopping = false;
  /** Messages this loop settled itself (stopping, malformed); the scheduler counts the rest. */
  let settledHere = 0;
  admitting = true;

  const loop = (async () => {
    for await (const msg of consume.messages) {
      if (stopping) {
        msg.nak(); // pulled but not started: back to the stream for the next consumer
        settledHere += 1;
        continue;
      }
      let delivery: DeliveryMessage;
      try {
        delivery = parseDeliveryMessage(msg.string());
      } catch (error) {
        logger.error({ err: (error as Error).message, subject: msg.subject }, "malformed delivery message dropped");
        msg.term();
        settledHere += 1;
        continue;
      }
      scheduler.submit({ delivery, settle: messageSettlement(msg, delivery, options.park, logger) });
      await scheduler.whenBelow(maxHeld);
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
        held: scheduler.heldCount(),
        settled: settledHere + scheduler.settledCount(),
        oldestWaitingAt: await consume.oldestWaitingAt(info),
        redelivered: info.num_redelivered,
      };
    },
    onStall: () => {
      scheduler.releaseQueued("stalled");
      consume.restart("stalled");
    },
  });

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      unwatch?.();
      consume.stop();
      await loop.catch((error) => logger.warn({ err: (error as Error).message }, "deliveries consumer ended with an error"));
    },
  };
}
