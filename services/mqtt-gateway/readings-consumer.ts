// Telemetry that an earlier version of the gateway stored in INGRESS (this one stores readings as
// device.reading events directly: reading-events.ts) still becomes device.reading events after
// an upgrade or beside an older replica during a rolling one. Each reading's event goes straight
// to EVENTS with an id derived from the stored message (contracts/events/derived-events.ts):
// handling a message again publishes the same event, which is dropped as a copy, so no inbox or
// outbox is needed. Readings are independent of each other, so many are handled at once. The
// consumer reads the whole stream and skips the other channels itself (select: "client", for the
// reason in platform/nats-filters.ts).
import type { RunningConsumer } from "@waybill/platform/consumer.js";
import { currentTransactionId } from "@waybill/platform/context.js";
import { DroppedMessage, startDeviceConsumer, type DeviceConsumerRuntime } from "@waybill/platform/device-consumer.js";
import { issuesOf, telemetrySchema } from "@waybill/contracts/devices/messages.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { publishStoredReadingEvent } from "./reading-events.js";

export const DEVICE_READINGS_DURABLE = "gateway-device-readings";
/** Readings in hand at once (each is one publish awaiting JetStream's acknowledgement). */
export const DEVICE_READINGS_CONCURRENCY = 200;

export function startReadingsConsumer(deps: DeviceConsumerRuntime & { bus: Bus; logger: Logger }): Promise<RunningConsumer> {
  return startDeviceConsumer({
    bus: deps.bus,
    logger: deps.logger,
    registry: deps.registry,
    health: deps.health,
    ackWaitMs: deps.ackWaitMs,
    deadLetters: deps.deadLetters,
    durable: DEVICE_READINGS_DURABLE,
    channel: "telemetry",
    select: "client",
    concurrency: DEVICE_READINGS_CONCURRENCY,
    async handle(message) {
      const reading = telemetrySchema.safeParse(message.payload);
      if (!reading.success) throw new DroppedMessage("invalid_payload", issuesOf(reading.error));
      await publishStoredReadingEvent(deps.bus, {
        tenantId: message.tenantId,
        deviceId: message.deviceId,
        reading: reading.data,
        messageId: message.messageId,
        receivedAt: message.receivedAt,
        transactionId: currentTransactionId(),
      });
    },
  });
}
