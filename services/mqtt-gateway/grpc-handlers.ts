// The gateway's gRPC surface: the device list, and device messages that arrive over HTTP, which
// pass the same topic and payload rules as MQTT publishes and the same publisher.
import type { MqttGatewayServiceServer } from "@waybill/contracts/gen/waybill/mqtt_gateway/v1/mqtt_gateway.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { unary } from "@waybill/platform/grpc.js";
import { idempotent } from "@waybill/platform/idempotency.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { pageLimit } from "@waybill/platform/pagination.js";
import { listDevices } from "./device-registry.js";
import { parseDevicePayload } from "./ingress.js";
import { publishDeviceMessage } from "./ingress-publisher.js";
import type { LastSeenWriter } from "./last-seen.js";
import { DEVICE_ID_PATTERN, publishableLevels, storedChannel } from "./topics.js";

export interface MqttGatewayHandlerDeps {
  pool: Pool;
  bus: Bus;
  lastSeen: LastSeenWriter;
}

export function createMqttGatewayHandlers(deps: MqttGatewayHandlerDeps, logger: Logger): MqttGatewayServiceServer {
  return {
    listDevices: unary(logger, async (request) => {
      const limit = pageLimit(request.limit);
      const page = await listDevices(deps.pool, request.tenantId, limit, request.cursor);
      return {
        data: page.data.map((d) => ({ ...d, lastSeenAt: d.lastSeenAt ?? undefined })),
        nextCursor: page.nextCursor ?? undefined,
      };
    }),
    publishReading: unary(logger, async (request) => {
      if (!DEVICE_ID_PATTERN.test(request.deviceId)) {
        throw appError("validation_failed", "The device id is not valid.", { errors: [{ path: "deviceId", message: "1 to 64 letters, digits, - or _" }] });
      }
      const channel = publishableLevels(request.deviceId, ["devices", request.deviceId, ...request.channel].join("/"));
      // Only channels a consumer takes are stored (as over MQTT).
      const stored = channel && storedChannel(channel);
      if (!channel || !stored)
        throw appError("validation_failed", "The channel is not valid.", { errors: [{ path: "channel", message: "one of inventory, shipments, telemetry" }] });
      const payload = parseDevicePayload(request.payloadJson, stored);
      if (!payload.ok) throw appError("validation_failed", "The payload is not valid.", { errors: [{ path: "payload", message: payload.detail }] });
      const ref = { tenantId: request.tenantId, deviceId: request.deviceId, tokenId: request.tokenId };
      const key = request.idempotency?.key;
      // The key also names the stored message, so a publish repeated after a failed commit is
      // deduplicated by the stream.
      const publish = () => publishDeviceMessage(deps.bus, { ...ref, channel: stored, payload: payload.value, dedupKey: key });
      const { value, replayed } = key
        ? await withTransaction(deps.pool, (client) => idempotent(client, request.tenantId, "devices.readings", request.idempotency, publish))
        : { value: await publish(), replayed: false };
      deps.lastSeen.seen(ref);
      return { ...value, replayed };
    }),
  };
}
