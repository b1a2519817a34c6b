// What the gateway stores in INGRESS for each device message: who sent it, where, and the
// payload as text. Consumers validate the payload; the gateway only checks it is JSON.
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

/** Parses a device payload: a JSON object of bounded size, or a reason to drop it. */
export function parseDevicePayload(payload: Buffer | string): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  if (size > MAX_DEVICE_PAYLOAD_BYTES) return { ok: false, reason: `payload over ${MAX_DEVICE_PAYLOAD_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString());
  } catch {
    return { ok: false, reason: "payload is not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, reason: "payload is not a JSON object" };
  return { ok: true, value: value as Record<string, unknown> };
}
