// What the gateway stores in INGRESS for each device message: who sent it, where, and the
// payload. The gateway refuses (acknowledges but never stores) a payload that is not valid for
// its channel, so consumers only see messages they can read.
import { inventoryReadingSchema, issuesOf, shipmentScanSchema, telemetrySchema, type DeviceChannel } from "@waybill/contracts/devices/messages.js";

export interface IngressMessage {
  tenantId: string;
  deviceId: string;
  tokenId: string;
  /** The levels below devices/<deviceId>/, e.g. ["inventory"]. */
  channel: string[];
  receivedAt: string;
  payload: unknown;
}

export const MAX_DEVICE_PAYLOAD_BYTES = 64 * 1024;

/** The `reason` label of waybill_mqtt_messages_dropped_total: one stable set, nothing else. */
export const DROP_REASONS = ["oversized", "malformed_json", "invalid_payload", "unknown_channel"] as const;
export type DropReason = (typeof DROP_REASONS)[number];

const CHANNEL_SCHEMAS = { inventory: inventoryReadingSchema, shipments: shipmentScanSchema, telemetry: telemetrySchema } as const;

/** `text`: the payload as received, the JSON text of `value`, stored as it is (ingress-publisher.ts). */
export type ParsedPayload = { ok: true; value: Record<string, unknown>; text: string } | { ok: false; reason: DropReason; detail: string };

/** Parses a device payload for `channel`: a JSON object of bounded size valid for the channel, or why not. */
export function parseDevicePayload(payload: Buffer | string, channel: DeviceChannel): ParsedPayload {
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  if (size > MAX_DEVICE_PAYLOAD_BYTES) return { ok: false, reason: "oversized", detail: `payload over ${MAX_DEVICE_PAYLOAD_BYTES} bytes` };
  const text = payload.toString();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "malformed_json", detail: "payload is not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, reason: "invalid_payload", detail: "payload is not a JSON object" };
  const checked = CHANNEL_SCHEMAS[channel].safeParse(value);
  if (!checked.success) return { ok: false, reason: "invalid_payload", detail: issuesOf(checked.error) };
  // The object as sent is stored: consumers read it with the same schema.
  return { ok: true, value: value as Record<string, unknown>, text };
}
