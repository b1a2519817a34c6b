// A durable INGRESS consumer for one device channel. A message that can never be applied
// (malformed, unknown product, refused transition …) is dropped: logged, counted and acked, so
// it is neither redelivered forever nor able to stop the consumer. Faults (5xx, database or bus
// down) are thrown, so the message is nak'ed and comes back.
import type { JsMsg } from "@nats-io/jetstream";
import { Counter, type Registry } from "prom-client";
import { startConsumer, type RunningConsumer } from "./consumer.js";
import type { ConsumerHealth } from "./consumer-health.js";
import type { DeadLetters } from "./dead-letters.js";
import { ingressEnvelopeSchema, issuesOf, type IngressEnvelope } from "./ingress-envelope.js";
import { AppError } from "./errors.js";
import type { Logger } from "./logger.js";
import { subjectMatches } from "./nats-filters.js";
import type { Bus } from "./nats.js";

export const DEVICE_DROPPED_METRIC = "waybill_device_messages_dropped_total";

/** Thrown by a handler for a message that is valid JSON but cannot be applied. */
export class DroppedMessage extends Error {
  constructor(
    readonly reason: string,
    detail: string,
  ) {
    super(detail);
  }
}

export interface DeviceMessage extends IngressEnvelope {
  /** Stable id of the stored message (its Nats-Msg-Id), for idempotent handling. */
  messageId: string;
}

export interface DeviceConsumerOptions {
  bus: Bus;
  logger: Logger;
  registry: Registry;
  durable: string;
  channel: string;
  handle(message: DeviceMessage): Promise<void>;
  /**
   * Where the channel's messages are picked out of INGRESS: by the server (a filtered durable, the
   * default) or here, from a durable over the whole stream that acknowledges other channels'
   * messages unread. "client" is for the channel that makes up most of INGRESS: a filtered
   * consumer that falls behind can slow to a crawl on nats-server 2.9 (nats-filters.ts).
   */
  select?: "server" | "client";
  /** Messages handled at once (default one at a time: stock counts and scans apply in order). */
  concurrency?: number;
  ackWaitMs?: number;
  health?: ConsumerHealth;
  deadLetters?: DeadLetters;
}

/** What every device consumer gets from its service's runtime. */
export interface DeviceConsumerRuntime {
  registry: Registry;
  health?: ConsumerHealth;
  ackWaitMs?: number;
  deadLetters?: DeadLetters;
}

/** `<prefix>ingress.*.devices.*.<channel>`: nats-server 2.9 takes one filter subject per consumer. */
export function deviceChannelFilter(bus: Bus, channel: string): string {
  return `${bus.topology.ingressWildcard.slice(0, -1)}*.devices.*.${channel}`;
}

export function startDeviceConsumer(options: DeviceConsumerOptions): Promise<RunningConsumer> {
  const { bus, logger, channel } = options;
  const dropped = droppedCounter(options.registry);
  const drop = (message: JsMsg, reason: string, detail: string, envelope?: IngressEnvelope) => {
    dropped.inc({ channel, reason });
    logger.warn(
      { subject: message.subject, seq: message.seq, deviceId: envelope?.deviceId, tenantId: envelope?.tenantId, reason, detail },
      "device message dropped",
    );
  };
  const filter = deviceChannelFilter(bus, channel);
  const selectHere = options.select === "client";
  return startConsumer({
    bus,
    stream: bus.topology.ingressStream,
    durable: options.durable,
    filterSubject: selectHere ? undefined : filter,
    logger,
    concurrency: options.concurrency,
    ackWaitMs: options.ackWaitMs,
    health: options.health,
    deadLetters: options.deadLetters,
    async handle(message) {
      if (selectHere && !subjectMatches(filter, message.subject)) return; // another channel's: acknowledged unread
      let raw: unknown;
      try {
        raw = message.json();
      } catch {
        return drop(message, "not_json", "stored message is not JSON");
      }
      const envelope = ingressEnvelopeSchema.safeParse(raw);
      if (!envelope.success) return drop(message, "bad_envelope", issuesOf(envelope.error));
      const messageId = message.headers?.get("Nats-Msg-Id") || `seq-${message.seq}`;
      try {
        await options.handle({ ...envelope.data, messageId });
      } catch (error) {
        if (error instanceof DroppedMessage) return drop(message, error.reason, error.message, envelope.data);
        // A refusal of the business rules (4xx) will be refused again: drop it. A key in flight
        // means an earlier delivery of this very message is still running: try again later.
        if (error instanceof AppError && error.status < 500 && error.code !== "idempotency_key_in_flight") {
          return drop(message, error.code, error.message, envelope.data);
        }
        throw error;
      }
    },
  });
}

function droppedCounter(registry: Registry): Counter<"channel" | "reason"> {
  const existing = registry.getSingleMetric(DEVICE_DROPPED_METRIC);
  if (existing) return existing as Counter<"channel" | "reason">;
  return new Counter({
    name: DEVICE_DROPPED_METRIC,
    help: "Device messages dropped because they cannot be applied",
    labelNames: ["channel", "reason"],
    registers: [registry],
  });
}
