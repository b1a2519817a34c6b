// Progress watch of durable JetStream consumers. A consumer that has stopped making progress while
// work waits for it (its ack floor still, and messages pending on the server, ack-pending at its
// limit, or messages held here that none of which is settled) for CONSUMER_STALL_WINDOW_MS is
// stalled: `waybill_consumer_stalled{consumer}` turns 1 and the service's /readyz fails, so an
// orchestrator restarts a process that a bug wedged; the consumer is also asked to restart its
// pulling and drop what it holds (JetStream redelivers it), which heals the wedges it can.
import { Gauge } from "prom-client";
import type { Logger } from "./logger.js";
import type { Ops } from "./ops.js";

export const CONSUMER_STALLED_METRIC = "waybill_consumer_stalled";
export const CONSUMER_BACKLOG_AGE_METRIC = "waybill_consumer_backlog_age_seconds";
export const CONSUMER_REDELIVERED_METRIC = "waybill_consumer_redelivered";
/** Checks run at least this often (the backlog age is sampled with them). */
const MAX_CHECK_INTERVAL_MS = 5_000;
export const DEFAULT_CONSUMER_STALL_WINDOW_MS = 120_000;
/** Checks per stall window: a stall is noticed at most a quarter window late. */
const CHECKS_PER_WINDOW = 4;

/** What a consumer reports at each check. */
export interface ProgressSample {
  /** Stream sequence below which every message is acknowledged (server side). */
  ackFloor: number;
  /** Messages not yet delivered to any client. */
  pending: number;
  ackPending: number;
  /** The consumer's max_ack_pending (-1 or 0: unlimited). */
  maxAckPending: number;
  /** Messages this process holds (received, not yet settled). */
  held: number;
  /** Messages this process settled (ack, nak, term) since it started. */
  settled: number;
  /** When the oldest message it has not settled was stored (undefined: none waits). */
  oldestWaitingAt?: number;
  /** Messages delivered more than once and not yet acknowledged (the server's num_redelivered). */
  redelivered?: number;
}

export interface WatchedConsumer {
  name: string;
  /** Reads the consumer's state; undefined when it cannot be read now (bus away: not a stall). */
  sample(): Promise<ProgressSample | undefined>;
  /** Called once when the consumer is found stalled. */
  onStall(): void;
}

export interface ConsumerHealth {
  watch(consumer: WatchedConsumer): () => void;
  /** Names of the consumers stalled now. */
  stalled(): string[];
  /** Runs one check of every watched consumer (the timer does it every window / 4). */
  checkNow(): Promise<void>;
  stop(): void;
}

interface Watch {
  consumer: WatchedConsumer;
  last?: ProgressSample;
  /** When the consumer was last seen moving (or without work waiting). */
  stuckSince?: number;
  stalled: boolean;
}

/** True when work waits for the consumer: on the server, or held here. */
function workWaits(s: ProgressSample): boolean {
  return s.pending > 0 || (s.maxAckPending > 0 && s.ackPending >= s.maxAckPending) || s.held > 0;
}

export function createConsumerHealth(options: { ops: Ops; logger: Logger; stallWindowMs?: number; now?: () => number }): ConsumerHealth {
  const { ops, logger } = options;
  const windowMs = options.stallWindowMs ?? DEFAULT_CONSUMER_STALL_WINDOW_MS;
  const now = options.now ?? Date.now;
  const watches = new Set<Watch>();
  const existing = ops.registry.getSingleMetric(CONSUMER_STALLED_METRIC) as Gauge<"consumer"> | undefined;
  const gauge =
    existing ??
    new Gauge({
      name: CONSUMER_STALLED_METRIC,
      help: "1 while a consumer makes no progress although messages wait for it",
      labelNames: ["consumer"],
      registers: [ops.registry],
    });

  const backlogAge =
    (ops.registry.getSingleMetric(CONSUMER_BACKLOG_AGE_METRIC) as Gauge<"consumer"> | undefined) ??
    new Gauge({
      name: CONSUMER_BACKLOG_AGE_METRIC,
      help: "Age of the oldest message a consumer has not yet settled (0 when none waits); sampled every few seconds",
      labelNames: ["consumer"],
      registers: [ops.registry],
    });

  const redelivered =
    (ops.registry.getSingleMetric(CONSUMER_REDELIVERED_METRIC) as Gauge<"consumer"> | undefined) ??
    new Gauge({
      name: CONSUMER_REDELIVERED_METRIC,
      help: "Messages the server delivered to a consumer more than once and that are not yet acknowledged; sampled every few seconds",
      labelNames: ["consumer"],
      registers: [ops.registry],
    });

  const check = async (watch: Watch) => {
    const sample = await watch.consumer.sample().catch(() => undefined);
    if (!sample) return;
    const previous = watch.last;
    watch.last = sample;
    const moved = !previous || sample.ackFloor !== previous.ackFloor || sample.settled !== previous.settled;
    if (moved || !workWaits(sample)) {
      // Counted from this sample on: the state it shows is the last one known to have moved.
      watch.stuckSince = now();
      if (watch.stalled) logger.info({ consumer: watch.consumer.name }, "consumer makes progress again");
      watch.stalled = false;
    } else {
      watch.stuckSince ??= now();
      if (!watch.stalled && now() - watch.stuckSince >= windowMs) {
        watch.stalled = true;
        logger.error({ consumer: watch.consumer.name, ...sample, stuckForMs: now() - watch.stuckSince }, "consumer stalled: no progress while messages wait");
        watch.consumer.onStall();
      }
    }
    gauge.set({ consumer: watch.consumer.name }, watch.stalled ? 1 : 0);
    backlogAge.set({ consumer: watch.consumer.name }, sample.oldestWaitingAt === undefined ? 0 : Math.max(0, (now() - sample.oldestWaitingAt) / 1000));
    redelivered.set({ consumer: watch.consumer.name }, sample.redelivered ?? 0);
  };

  let checking: Promise<void> | undefined;
  const checkNow = () =>
    (checking ??= Promise.all([...watches].map(check))
      .then(() => undefined)
      .finally(() => (checking = undefined)));
  const timer = setInterval(() => void checkNow(), Math.max(100, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(windowMs / CHECKS_PER_WINDOW))));
  timer.unref();

  const stalled = () => [...watches].filter((w) => w.stalled).map((w) => w.consumer.name);
  ops.addCheck("consumers", async () => {
    const names = stalled();
    if (names.length > 0) throw new Error(`stalled: ${names.join(", ")}`);
  });

  return {
    watch(consumer) {
      const watch: Watch = { consumer, stalled: false };
      watches.add(watch);
      gauge.set({ consumer: consumer.name }, 0);
      backlogAge.set({ consumer: consumer.name }, 0);
      redelivered.set({ consumer: consumer.name }, 0);
      return () => {
        watches.delete(watch);
        gauge.remove({ consumer: consumer.name });
        backlogAge.remove({ consumer: consumer.name });
        redelivered.remove({ consumer: consumer.name });
      };
    },
    stalled,
    checkNow,
    stop: () => clearInterval(timer),
  };
}
