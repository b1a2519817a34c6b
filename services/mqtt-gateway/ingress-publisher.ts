// The one code path that stores a device message in INGRESS, for MQTT publishes and HTTP
// readings alike: subject ingress.<tenant>.devices.<device>.<channel…>, the envelope of
// ingress.ts, Nats-Msg-Id for deduplication, and only resolved once the stream stored it.
import { createHash } from "node:crypto";
import { newUlid } from "@waybill/platform/ids.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { operationHeaders, publishDurable, TENANT_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import type { IngressMessage } from "./ingress.js";

export interface StoredDeviceMessage {
  messageId: string;
  receivedAt: string;
}

export interface PublishDeviceMessageInput {
  tenantId: string;
  deviceId: string;
  tokenId: string;
  channel: string[];
  payload: Record<string, unknown>;
  /** A caller's retry key: the same key stores the message once within the duplicate window. */
  dedupKey?: string;
  /** The stored id chosen by the caller (an MQTT resend reuses its first attempt's). */
  messageId?: string;
}

export async function publishDeviceMessage(bus: Bus, input: PublishDeviceMessageInput): Promise<StoredDeviceMessage> {
  const receivedAt = new Date().toISOString();
  const message: IngressMessage = {
    tenantId: input.tenantId,
    deviceId: input.deviceId,
    tokenId: input.tokenId,
    channel: input.channel,
    receivedAt,
    payload: input.payload,
  };
  const messageId =
    input.messageId ??
    (input.dedupKey
      ? `dedup-${createHash("sha256").update(`${input.tenantId}\n${input.deviceId}\n${input.dedupKey}`).digest("hex").slice(0, 40)}`
      : `dm-${newUlid()}`);
  const subject = bus.topology.ingressSubject(input.tenantId, "devices", input.deviceId, ...input.channel);
  await publishDurable(bus, subject, JSON.stringify(message), {
    msgId: messageId,
    headers: operationHeaders({ [TENANT_ID_NATS_HEADER]: input.tenantId }),
  }).catch((error: Error) => {
    // Not stored: the sender must retry (MQTT withholds the PUBACK, HTTP answers 503).
    throw appError("ingress_unavailable", `The device message could not be stored (${error.message}); retry.`, { cause: error });
  });
  return { messageId, receivedAt };
}
