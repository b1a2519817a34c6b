// The one code path that stores a device message, for MQTT publishes and HTTP readings alike,
// resolved only once the stream stored it, with Nats-Msg-Id for deduplication: stock counts and
// shipment scans in INGRESS (subject ingress.<tenant>.devices.<device>.<channel…>, the envelope
// of ingress.ts) for inventory and orders to consume; telemetry as its device.reading event in
// EVENTS (reading-events.ts).
import { createHash } from "node:crypto";
import { newUlid } from "@waybill/platform/ids.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { operationHeaders, publishDurable, TENANT_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import type { DeviceChannel } from "@waybill/contracts/devices/messages.js";
import type { IngressMessage } from "./ingress.js";
import { publishReadingEvent } from "./reading-events.js";

export interface StoredDeviceMessage {
  messageId: string;
  receivedAt: string;
}

export interface PublishDeviceMessageInput {
  tenantId: string;
  deviceId: string;
  tokenId: string;
  channel: DeviceChannel;
  payload: Record<string, unknown>;
  /** The payload's JSON text as received (parseDevicePayload's `text`): stored as it is rather than serialised again. */
  payloadText?: string;
  /** A caller's retry key: the same key stores the message once within the duplicate window. */
  dedupKey?: string;
  /** The stored id chosen by the caller (an MQTT resend reuses its first attempt's). */
  messageId?: string;
}

export function publishDeviceMessage(bus: Bus, input: PublishDeviceMessageInput): Promise<StoredDeviceMessage> {
  const receivedAt = new Date().toISOString();
  const messageId =
    input.messageId ??
    (input.dedupKey
      ? `dedup-${createHash("sha256").update(`${input.tenantId}\n${input.deviceId}\n${input.dedupKey}`).digest("hex").slice(0, 40)}`
      : `dm-${newUlid()}`);
  const stored =
    input.channel === "telemetry"
      ? publishReadingEvent(bus, { tenantId: input.tenantId, deviceId: input.deviceId, reading: input.payload, messageId, receivedAt })
      : publishDurable(bus, bus.topology.ingressSubject(input.tenantId, "devices", input.deviceId, input.channel), envelopeJson(input, receivedAt), {
          msgId: messageId,
          headers: operationHeaders({ [TENANT_ID_NATS_HEADER]: input.tenantId }),
        });
  return stored.then(
    () => ({ messageId, receivedAt }),
    (error: Error) => {
      // Not stored: the sender must retry (MQTT withholds the PUBACK, HTTP answers 503).
      throw appError("ingress_unavailable", `The device message could not be stored (${error.message}); retry.`, { cause: error });
    },
  );
}

/** The IngressMessage as JSON, payload last; a payload's text as received goes in unchanged (it is a JSON object: parseDevicePayload). */
function envelopeJson(input: PublishDeviceMessageInput, receivedAt: string): string {
  const { tenantId, deviceId, tokenId, payload, payloadText } = input;
  const channel = [input.channel];
  if (payloadText === undefined) return JSON.stringify({ tenantId, deviceId, tokenId, channel, receivedAt, payload } satisfies IngressMessage);
  const head = JSON.stringify({ tenantId, deviceId, tokenId, channel, receivedAt } satisfies Omit<IngressMessage, "payload">);
  return `${head.slice(0, -1)},"payload":${payloadText}}`;
}
