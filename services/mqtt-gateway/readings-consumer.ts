// Telemetry (devices/<id>/telemetry, any JSON object) becomes a device.reading event. The
// gateway consumes its own INGRESS subject so the event goes through its outbox; the inbox makes
// a redelivered message emit nothing twice. Readings are independent of each other (unlike stock
// counts, their order does not matter), so many are handled at once and those that arrive
// together are written in one transaction: one message per transaction could not keep up with
// what the broker accepts.
import { createBatcher } from "@waybill/platform/batcher.js";
import type { RunningConsumer } from "@waybill/platform/consumer.js";
import { processOnceBatch } from "@waybill/platform/consumer.js";
import { currentTransactionId } from "@waybill/platform/context.js";
import type { Pool } from "@waybill/platform/db.js";
import { DroppedMessage, startDeviceConsumer, type DeviceConsumerRuntime, type DeviceMessage } from "@waybill/platform/device-consumer.js";
import { issuesOf, telemetrySchema } from "@waybill/platform/device-messages.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";

export const DEVICE_READINGS_DURABLE = "gateway-device-readings";
/** Readings in hand at once; each batch written takes what arrived while the last one ran. */
export const DEVICE_READINGS_CONCURRENCY = 200;

interface Reading {
  message: DeviceMessage;
  reading: Record<string, unknown>;
  /** Each reading keeps its own operation, whichever message's turn writes the batch. */
  transactionId: string;
}

export function startReadingsConsumer(deps: DeviceConsumerRuntime & { pool: Pool; bus: Bus; logger: Logger }): Promise<RunningConsumer> {
  const record = createBatcher((readings: Reading[]) =>
    processOnceBatch(
      deps.pool,
      DEVICE_READINGS_DURABLE,
      readings.map((r) => r.message.messageId),
      async (client, isNew) => {
        const events = readings
          .filter((_, i) => isNew[i])
          .map(({ message, reading, transactionId }) => ({
            tenantId: message.tenantId,
            transactionId,
            kind: "device.reading" as const,
            payload: { deviceId: message.deviceId, reading, receivedAt: message.receivedAt },
          }));
        await appendEvents(client, deps.bus.topology, events);
      },
    ),
  );
  return startDeviceConsumer({
    bus: deps.bus,
    logger: deps.logger,
    registry: deps.registry,
    health: deps.health,
    ackWaitMs: deps.ackWaitMs,
    deadLetters: deps.deadLetters,
    durable: DEVICE_READINGS_DURABLE,
    channel: "telemetry",
    concurrency: DEVICE_READINGS_CONCURRENCY,
    async handle(message) {
      const reading = telemetrySchema.safeParse(message.payload);
      if (!reading.success) throw new DroppedMessage("invalid_payload", issuesOf(reading.error));
      await record({ message, reading: reading.data, transactionId: currentTransactionId() });
    },
  });
}
