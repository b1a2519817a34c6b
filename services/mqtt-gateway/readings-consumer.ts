// Telemetry (devices/<id>/telemetry, any JSON object) becomes a device.reading event. The
// gateway consumes its own INGRESS subject so the event goes through its outbox; the inbox makes
// a redelivered message emit nothing twice.
import type { Registry } from "prom-client";
import type { RunningConsumer } from "../platform/consumer.js";
import { processOnce } from "../platform/consumer.js";
import type { Pool } from "../platform/db.js";
import { DroppedMessage, startDeviceConsumer } from "../platform/device-consumer.js";
import { issuesOf, telemetrySchema } from "../platform/device-messages.js";
import type { Logger } from "../platform/logger.js";
import type { Bus } from "../platform/nats.js";
import { appendEvents } from "../platform/outbox.js";

export const DEVICE_READINGS_DURABLE = "gateway-device-readings";

export function startReadingsConsumer(deps: { pool: Pool; bus: Bus; logger: Logger; registry: Registry }): Promise<RunningConsumer> {
  return startDeviceConsumer({
    bus: deps.bus,
    logger: deps.logger,
    registry: deps.registry,
    durable: DEVICE_READINGS_DURABLE,
    channel: "telemetry",
    async handle(message) {
      const reading = telemetrySchema.safeParse(message.payload);
      if (!reading.success) throw new DroppedMessage("invalid_payload", issuesOf(reading.error));
      await processOnce(deps.pool, DEVICE_READINGS_DURABLE, message.messageId, async (client) => {
        await appendEvents(client, deps.bus.topology, [
          { tenantId: message.tenantId, kind: "device.reading", payload: { deviceId: message.deviceId, reading: reading.data, receivedAt: message.receivedAt } },
        ]);
      });
    },
  });
}
