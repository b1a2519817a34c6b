// Shipment scans from devices (devices/<id>/shipments): a status change of the shipment with
// that tracking number, through the same function as HTTP (a delivery may complete the order).
// Idempotent by the state machine: a redelivered scan asks for the transition already made,
// which is refused (409) and dropped, so it changes nothing twice.
import type { RunningConsumer } from "@waybill/platform/consumer.js";
import { DroppedMessage, startDeviceConsumer, type DeviceConsumerRuntime } from "@waybill/platform/device-consumer.js";
import { issuesOf, shipmentScanSchema } from "@waybill/contracts/devices/messages.js";
import type { Bus } from "@waybill/platform/nats.js";
import type { OrdersDeps } from "./deps.js";
import { applyShipmentStatus } from "./shipments.js";

export const DEVICE_SHIPMENTS_DURABLE = "orders-device-shipments";

export function startDeviceShipmentsConsumer(deps: OrdersDeps & DeviceConsumerRuntime & { bus: Bus }): Promise<RunningConsumer> {
  return startDeviceConsumer({
    bus: deps.bus,
    logger: deps.logger,
    registry: deps.registry,
    health: deps.health,
    ackWaitMs: deps.ackWaitMs,
    deadLetters: deps.deadLetters,
    durable: DEVICE_SHIPMENTS_DURABLE,
    channel: "shipments",
    async handle(message) {
      const scan = shipmentScanSchema.safeParse(message.payload);
      if (!scan.success) throw new DroppedMessage("invalid_payload", issuesOf(scan.error));
      const { trackingNumber, status, location, at } = scan.data;
      await applyShipmentStatus(deps, message.tenantId, { trackingNumber }, { status, location, at, note: `device ${message.deviceId}` });
    },
  });
}
