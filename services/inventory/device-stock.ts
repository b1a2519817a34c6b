// Stock counts from devices (devices/<id>/inventory): the measured count becomes on_hand, as an
// adjustment with reason "device <deviceId>" and its events (inventory.adjusted, low, depleted).
import type { RunningConsumer } from "@waybill/platform/consumer.js";
import { DroppedMessage, startDeviceConsumer, type DeviceConsumerRuntime } from "@waybill/platform/device-consumer.js";
import { inventoryReadingSchema, issuesOf } from "@waybill/contracts/devices/messages.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { adjustStock } from "./adjustments.js";
import type { InventoryDeps } from "./products.js";

export const DEVICE_STOCK_DURABLE = "inventory-device-stock";

export function startDeviceStockConsumer(deps: InventoryDeps & DeviceConsumerRuntime & { bus: Bus; logger: Logger }): Promise<RunningConsumer> {
  return startDeviceConsumer({
    bus: deps.bus,
    logger: deps.logger,
    registry: deps.registry,
    health: deps.health,
    ackWaitMs: deps.ackWaitMs,
    deadLetters: deps.deadLetters,
    durable: DEVICE_STOCK_DURABLE,
    channel: "inventory",
    async handle(message) {
      const reading = inventoryReadingSchema.safeParse(message.payload);
      if (!reading.success) throw new DroppedMessage("invalid_payload", issuesOf(reading.error));
      const { productId, location, onHand } = reading.data;
      // The message id as idempotency key: a redelivered message replays instead of adjusting twice.
      await adjustStock(
        deps,
        message.tenantId,
        { productId, location, setTo: onHand, reason: `device ${message.deviceId}` },
        { key: `ingress:${message.messageId}`, requestHash: message.messageId },
      );
    },
  });
}
