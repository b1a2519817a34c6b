// Durable JetStream consumers with at-least-once handling: each message runs in the operation
// context carried by its headers; failures are nak'ed with a growing delay; `processOnce`
// makes a handler idempotent through the service's inbox table.
import { DEFAULT_CONSUMER_ACK_WAIT_MS } from "./config.js";
import { backoffMs } from "./backoff.js";
import { AckPolicy, DeliverPolicy, type JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { contextFrom, runInContext, TRACEPARENT_HEADER } from "./context.js";
import type { ConsumerHealth } from "./consumer-health.js";
import { PoisonMessage, type DeadLetters } from "./dead-letters.js";
import type { Pool, PoolClient } from "./db.js";
import { withTransaction } from "./transactions.js";
import { createAckCoalescer } from "./ack-coalescer.js";
import { startDurableConsume, type DurableConsume } from "./durable-consume.js";
import { createTaskSlots } from "./task-slots.js";
import type { Logger } from "./logger.js";
import { consumeSpan } from "./nats-tracing.js";
import { TRANSACTION_ID_NATS_HEADER, type Bus } from "./nats.js";

export const CONSUMER_MAX_ACK_PENDING = 1_000;
export const CONSUMER_BATCH = 100;
export const CONSUMER_MAX_RETRY_DELAY_MS = 30_000;
export const CONSUMER_FIRST_RETRY_DELAY_MS = 500;
/** Deliveries of one message before it is given up on (a dead letter when the consumer has a store). */
export const CONSUMER_MAX_DELIVER = 10;

/** The delay before a failed message comes back: doubling from 0.5 s, at most `maxMs`. */
export function redeliveryDelayMs(deliveryCount: number, maxMs = CONSUMER_MAX_RETRY_DELAY_MS): number {
  return backoffMs(deliveryCount, { baseMs: CONSUMER_FIRST_RETRY_DELAY_MS, maxMs });
}

export interface ConsumerOptions {
  bus: Bus;
  stream: string;
  durable: string;
  /**
   * The stream's subjects this consumer takes; none: the whole stream. Leave it out rather than
   * naming every subject: nats-server 2.9 counts a filtered consumer's pending messages by
   * scanning the stream (nats-filters.ts says when that slows deliveries down).
   */
  filterSubject?: string;
  logger: Logger;
  /** Handles one message; throwing nak's it for redelivery. */
  handle(message: JsMsg): Promise<void>;
  ackWaitMs?: number;
  maxAckPending?: number;
  /** Messages handled at once; more lets a slow message not hold back the next ones. */
  concurrency?: number;
  /** Where the consumer's progress is watched (stall → /readyz red, metric); none: not watched. */
  health?: ConsumerHealth;
  /** Lifetime of each pull request (PULL_EXPIRES_MS unless given). */
  pullExpiresMs?: number;
  /**
   * Where messages go that are given up on: a PoisonMessage at once, any other failure after
   * `maxDeliver` deliveries. Without a store a failing message is redelivered for ever.
   */
  deadLetters?: DeadLetters;
  maxDeliver?: number;
  /**
   * Resolves when the handler can take another message; the consumer hands it none before (and,
   * once its pulled batch is used up, pulls no more). For handlers whose work continues in a
   * queue of their own that must not outgrow what they can start.
   */
  admit?: () => Promise<void>;
}

export interface RunningConsumer {
  stop(): Promise<void>;
}

export async function startConsumer(options: ConsumerOptions): Promise<RunningConsumer> {
  const { bus, stream, durable, logger } = options;
  const maxAckPending = options.maxAckPending ?? CONSUMER_MAX_ACK_PENDING;
  // What is in hand when the server restarts is simply finished: its ack may be lost, and the
  // server redelivers it, which the handlers take idempotently (inbox, natural keys).
  const consume: DurableConsume = await startDurableConsume({
    bus,
    stream,
    logger,
    maxMessages: CONSUMER_BATCH,
    pullExpiresMs: options.pullExpiresMs,
    config: {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: options.filterSubject, // present even when undefined: see nats-filters.ts
      ack_wait: nanos(options.ackWaitMs ?? DEFAULT_CONSUMER_ACK_WAIT_MS),
      max_ack_pending: maxAckPending,
    },
  });
  const concurrency = options.concurrency ?? 1;
  const maxDeliver = options.maxDeliver ?? CONSUMER_MAX_DELIVER;
  const slots = createTaskSlots(concurrency);
  const acks = createAckCoalescer();
  let settled = 0;

  const handleOne = async (message: JsMsg) => {
    const span = consumeSpan(logger, durable, message);
    const context = contextFrom(
      undefined,
      message.headers?.get(TRANSACTION_ID_NATS_HEADER) || undefined,
      message.headers?.get(TRACEPARENT_HEADER) || undefined,
      span,
    );
    await runInContext(context, async () => {
      try {
        await options.handle(message);
        acks.ack(message);
      } catch (error) {
        span?.fail(error);
        const reason = (error as Error).message;
        const poison = error instanceof PoisonMessage;
        if (options.deadLetters && (poison || message.info.deliveryCount >= maxDeliver)) {
          try {
            await options.deadLetters.record(durable, stream, message, reason);
            message.term(reason.slice(0, 200));
            logger.error({ err: reason, subject: message.subject, delivery: message.info.deliveryCount, poison }, "message given up on: kept as a dead letter");
          } catch (storeError) {
            logger.warn({ err: (storeError as Error).message }, "could not store a dead letter; the message will be redelivered");
            message.nak(redeliveryDelayMs(message.info.deliveryCount));
          }
        } else {
          const delay = redeliveryDelayMs(message.info.deliveryCount);
          logger.warn({ err: reason, subject: message.subject, delivery: message.info.deliveryCount, delay }, "message handling failed; will be redelivered");
          message.nak(delay);
        }
      }
      settled += 1;
      span?.end();
    });
  };

  const loop = (async () => {
    for await (const message of consume.messages) {
      if (options.admit) await options.admit();
      await slots.run(() => handleOne(message));
    }
    await slots.drained();
  })();

  const unwatch = options.health?.watch({
    name: durable,
    async sample() {
      const info = await consume.info();
      return {
        ackFloor: info.ack_floor.stream_seq,
        pending: info.num_pending,
        ackPending: info.num_ack_pending,
        maxAckPending,
        held: slots.inFlight,
        settled,
        oldestWaitingAt: await consume.oldestWaitingAt(info),
        redelivered: info.num_redelivered,
      };
    },
    onStall: () => consume.restart("stalled"),
  });

  return {
    async stop() {
      unwatch?.();
      // Stop pulling, then let what is in hand finish so that SIGTERM never drops work.
      consume.stop();
      await loop.catch(() => {});
      acks.flush();
    },
  };
}

/**
 * Runs `fn` in a transaction that also records `messageId` in the inbox; a message seen before
 * is skipped. Returns false when it was a duplicate.
 */
export async function processOnce(pool: Pool, consumer: string, messageId: string, fn: (client: PoolClient) => Promise<void>): Promise<boolean> {
  const [fresh] = await processOnceBatch(pool, consumer, [messageId], (client) => fn(client));
  return fresh;
}

/**
 * `processOnce` for many messages in one transaction: records the ids in the inbox and runs `fn`
 * with, per id given, whether it is new (a second copy of an id in the same batch is not).
 * Returns those same flags.
 */
export async function processOnceBatch(
  pool: Pool,
  consumer: string,
  messageIds: string[],
  fn: (client: PoolClient, isNew: boolean[]) => Promise<void>,
): Promise<boolean[]> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ message_id: string }>(
      "INSERT INTO inbox (consumer, message_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING message_id",
      [consumer, [...new Set(messageIds)]],
    );
    const fresh = new Set(rows.map((r) => r.message_id));
    const isNew = messageIds.map((id) => fresh.delete(id)); // true for the first copy only
    if (isNew.includes(true)) await fn(client, isNew);
    return isNew;
  });
}
