// Device messages (API.md, "Devices over MQTT"): the payload of each channel and the envelope
// the gateway stores in INGRESS. One definition for the gateway, the edge and the consumers.
import { z } from "zod";

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

/** What the gateway stores for each device message (see mqtt-gateway/ingress.ts). */
export const ingressEnvelopeSchema = z.object({
  tenantId: text(100),
  deviceId: text(64),
  tokenId: text(100),
  channel: z.array(z.string()).min(1),
  receivedAt: instant,
  payload: z.unknown(),
});

export type IngressEnvelope = z.output<typeof ingressEnvelopeSchema>;

/** Short reason for a failed parse, for logs and the drop counter's label. */
export function issuesOf(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ");
}
