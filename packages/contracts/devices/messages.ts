// Device messages (API.md, "Devices over MQTT"): the payload of each channel. One definition for
// the gateway, the edge and the consumers. The envelope the gateway stores them in on INGRESS is
// the platform's (ingress-envelope.ts), as is reading them from there (device-consumer.ts).
import { z } from "zod";

export { issuesOf } from "@waybill/platform/ingress-envelope.js";

const text = (max: number) => z.string().min(1).max(max);
const instant = z.string().datetime({ offset: true });

/** devices/<id>/inventory: a stock count. */
export const inventoryReadingSchema = z.object({
  productId: text(100),
  location: text(100).optional(),
  onHand: z.number().int().min(0),
  measuredAt: instant.optional(),
});

/** devices/<id>/shipments: a shipment scan. */
export const shipmentScanSchema = z.object({
  trackingNumber: text(100),
  status: text(32),
  location: text(200).optional(),
  at: instant.optional(),
});

/** devices/<id>/telemetry: any JSON object. */
export const telemetrySchema = z.record(z.string(), z.unknown());

export const DEVICE_CHANNELS = ["inventory", "shipments", "telemetry"] as const;
export type DeviceChannel = (typeof DEVICE_CHANNELS)[number];
