// Pulling from a durable JetStream consumer for as long as the service runs, whatever happens to
// the server: the client reconnects by itself (nats.ts) and re-issues its pulls, but a consumer
// that was deleted (or lost with a server's storage) is only waited for, and a pull subscription
// that ended (a fatal status, a closed iterator) is not started again. Here the durable is
// declared again and a fresh pull started, with backoff, and the owner is told whenever what it
// holds in memory may no longer match the server (`onDisruption`): after a server restart the
// server redelivers what was unacknowledged, so admission state built on the old deliveries has
// to be dropped or re-derived, never trusted.
import { backoffMs } from "./backoff.js";
import type { ConsumerConfig, ConsumerInfo, ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import type { Logger } from "./logger.js";
import { ensureConsumer, ensureStreams, type Bus } from "./nats.js";

export const CONSUME_RETRY_MIN_MS = 250;
export const CONSUME_RETRY_MAX_MS = 10_000;
/** A pull request expires after this long and is renewed; two missed heartbeats (half of it each) restart the pull. */
export const PULL_EXPIRES_MS = 30_000;

export type DisruptionReason = "reconnect" | "consumer gone" | "restarted" | "stalled";

export interface DurableConsumeOptions {
  bus: Bus;
  stream: string;
  config: Partial<ConsumerConfig> & { durable_name: string };
  logger: Logger;
  /** Messages asked for per pull. */
  maxMessages: number;
  /** How long a pull request waits on the server (the client heartbeats at half of it); 30 s by default. */
  pullExpiresMs?: number;
  /** What the owner holds may be stale: re-derive or release it (the server redelivers what is unacknowledged). */
  onDisruption?(reason: DisruptionReason): void;
  random?: () => number;
}

export interface DurableConsume {
  /** Every message received, across restarts of the pull; ends after stop(). */
  messages: AsyncIterable<JsMsg>;
  /** Stops pulling; the iteration ends after what was already received. */
  stop(): void;
  /** Ends the present pull subscription and starts a fresh one (declaring the durable again). */
  restart(reason: DisruptionReason): void;
  /** The consumer's state on the server. */
  info(): Promise<ConsumerInfo>;
  /** When the oldest message not yet acknowledged was stored (undefined: none waits, or unknown). */
  oldestWaitingAt(info: ConsumerInfo): Promise<number | undefined>;
}

/** Declares the durable (and its streams when they are gone) and starts consuming it. */
export async function startDurableConsume(options: DurableConsumeOptions): Promise<DurableConsume> {
  const { bus, stream, config, logger } = options;
  const durable = config.durable_name;
  const random = options.random ?? Math.random;
  let stopped = false;
  let active: ConsumerMessages | undefined;
  let wake: (() => void) | undefined;

  const open = async (): Promise<ConsumerMessages> => {
    try {
      await ensureConsumer(bus, stream, config);
    } catch (error) {
      if (!/stream not found/i.test((error as Error).message)) throw error;
      await ensureStreams(bus, logger);
      await ensureConsumer(bus, stream, config);
    }
    const consumer = await bus.js.consumers.get(stream, durable);
    const messages = await consumer.consume({ max_messages: options.maxMessages, expires: options.pullExpiresMs ?? PULL_EXPIRES_MS });
    void watchStatus(messages);
    return messages;
  };

  /** The present pull was ended on purpose (restart), so a fresh one starts at once. */
  let requested = false;
  const restart = (reason: DisruptionReason) => {
    if (stopped || !active) return;
    requested = true;
    logger.warn({ stream, consumer: durable, reason }, "restarting the consumer's pull");
    active.stop();
  };

  // The client re-pulls on its own after a reconnect or missed heartbeats; a consumer deleted
  // under it is only reported: declare it again through a fresh pull.
  async function watchStatus(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const status of messages.status()) {
        switch (status.type) {
          case "consumer_deleted":
          case "consumer_not_found":
          case "stream_not_found":
            if (active === messages) {
              options.onDisruption?.("consumer gone");
              restart("consumer gone");
            }
            break;
          case "heartbeats_missed":
            logger.warn({ stream, consumer: durable, missed: status.count }, "consumer heartbeats missed; pulling again");
            break;
        }
      }
    } catch {
      // the iterator ended with the pull
    }
  }

  const statuses = bus.nc.status();
  void (async () => {
    for await (const status of statuses) {
      if (stopped) break;
      if (status.type === "reconnect") options.onDisruption?.("reconnect");
    }
  })().catch(() => {});

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  // The first open fails the start (a wrong configuration is reported, not retried for ever).
  active = await open();

  /** Jittered exponential backoff after `failures` failures in a row. */
  const retryDelayMs = (failures: number) => backoffMs(failures, { baseMs: CONSUME_RETRY_MIN_MS, maxMs: CONSUME_RETRY_MAX_MS, jitter: 0.5, random });

  async function* run(): AsyncGenerator<JsMsg> {
    let failures = 0;
    while (!stopped) {
      if (!active) {
        try {
          active = await open();
        } catch (error) {
          if (bus.nc.isClosed()) return;
          const delay = retryDelayMs(++failures);
          logger.warn({ stream, consumer: durable, err: (error as Error).message, retryInMs: Math.round(delay) }, "consumer cannot be opened; will retry");
          await pause(delay);
          continue;
        }
      }
      const current = active;
      requested = false;
      let received = false;
      try {
        for await (const message of current) {
          received = true;
          failures = 0;
          yield message;
        }
      } catch (error) {
        logger.warn({ stream, consumer: durable, err: (error as Error).message }, "consumer pull ended with an error");
      }
      active = undefined;
      if (stopped || bus.nc.isClosed()) return;
      options.onDisruption?.("restarted");
      // A pull that ends by itself again and again (a refused request) is not retried in a busy loop.
      if (!requested && !received) await pause(retryDelayMs(++failures));
    }
  }

  return {
    messages: run(),
    stop() {
      stopped = true;
      active?.stop();
      wake?.();
      (statuses as { stop?: () => void }).stop?.();
    },
    restart,
    info: () => bus.jsm.consumers.info(stream, durable),
    async oldestWaitingAt(info) {
      if (info.num_pending + info.num_ack_pending === 0) return undefined;
      // The first message of the consumer's subjects above its ack floor is the oldest it has not settled.
      const query = { seq: info.ack_floor.stream_seq + 1, ...(config.filter_subject ? { next_by_subj: config.filter_subject } : {}) };
      try {
        return (await bus.jsm.streams.getMessage(stream, query as { seq: number }))?.time.getTime();
      } catch {
        return undefined;
      }
    },
  };
}
