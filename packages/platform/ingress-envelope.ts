// The envelope the MQTT gateway stores each device message in on INGRESS, which the device
// consumers (device-consumer.ts) read. What a channel's payload holds is a contract between the
// gateway, the edge and the consumers: @waybill/contracts/devices/messages.ts.
import { z } from "zod";

const text = (max: number) => z.string().min(1).max(max);

/** What the gateway stores for each device message (see mqtt-gateway/ingress.ts). */
export const ingressEnvelopeSchema = z.object({
  tenantId: text(100),
  deviceId: text(64),
  tokenId: text(100),
  channel: z.array(z.string()).min(1),
  receivedAt: z.string().datetime({ offset: true }),
  payload: z.unknown(),
});

export type IngressEnvelope = z.output<typeof ingressEnvelopeSchema>;

/** Short reason for a failed parse, for logs and the drop counter's label. */
export function issuesOf(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "payload"}: ${i.message}`).join("; ");
}
