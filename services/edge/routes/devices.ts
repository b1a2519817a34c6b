// /v1/devices: the device registry and device messages over HTTP, thin adapters to the MQTT
// gateway's MqttGatewayService (which stores HTTP readings through the same path as MQTT publishes).
import type { MqttGatewayServiceClient } from "@waybill/contracts/gen/waybill/mqtt_gateway/v1/mqtt_gateway.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { route, type Api } from "../route.js";
import { pageOf } from "../schemas/common.js";
import { deviceOutput, devicesQuery, readingBody, readingOutput } from "../schemas/devices.js";

export function devicesRoutes(api: Api, devices: MqttGatewayServiceClient): void {
  route(
    api,
    {
      method: "get",
      path: "/devices",
      summary: "List the tenant's devices with their connection state, newest first",
      tag: "devices",
      capability: "read",
      query: devicesQuery,
      response: pageOf(deviceOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(devices.listDevices.bind(devices), { tenantId: principal.tenantId, limit: query.limit, cursor: query.cursor });
      return { body: { data: page.data.map((d) => ({ ...d, lastSeenAt: d.lastSeenAt ?? null })), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/devices/:deviceId/readings",
      summary: "Send a device message over HTTP; stored durably exactly like an MQTT publish, then applied asynchronously",
      tag: "devices",
      capability: "devices:publish",
      body: readingBody,
      response: readingOutput,
      status: 202,
      idempotent: true,
      errors: ["ingress_unavailable"],
    },
    async ({ body, params, principal, idempotency }) => {
      const stored = await callUnary(devices.publishReading.bind(devices), {
        tenantId: principal.tenantId,
        deviceId: params.deviceId,
        tokenId: principal.credentialId,
        channel: [body.channel],
        payloadJson: JSON.stringify(body.payload),
        idempotency,
      });
      return {
        body: { messageId: stored.messageId, deviceId: params.deviceId, channel: body.channel, receivedAt: stored.receivedAt },
        replayed: stored.replayed,
      };
    },
  );
}
