// Devices: the device list and device messages over HTTP, request and response schemas. The
// payloads are the ones MQTT devices publish (@waybill/contracts/devices/messages.ts).
import { z } from "zod";
import { inventoryReadingSchema, shipmentScanSchema, telemetrySchema } from "@waybill/contracts/devices/messages.js";
import { pageQuery, resourceId, timestamp } from "./common.js";

export const devicesQuery = pageQuery;

export const deviceOutput = z.object({
  id: resourceId("dev").describe("The device's id (dev_…)"),
  deviceId: z.string().describe("The id the device connects with (its MQTT username)"),
  tokenId: resourceId("tok").describe("The sensor token of its latest session"),
  lastSeenAt: z.string().nullable().describe("Last connect, disconnect or message (written behind, about a second late)"),
  connected: z.boolean(),
  createdAt: timestamp,
});

export const readingBody = z
  .discriminatedUnion("channel", [
    z.object({ channel: z.literal("inventory").describe("as devices/<deviceId>/inventory"), payload: inventoryReadingSchema.strict() }).strict(),
    z.object({ channel: z.literal("shipments").describe("as devices/<deviceId>/shipments"), payload: shipmentScanSchema.strict() }).strict(),
    z.object({ channel: z.literal("telemetry").describe("as devices/<deviceId>/telemetry"), payload: telemetrySchema }).strict(),
  ])
  .describe("One device message: the MQTT topic's channel and the JSON payload a device would publish there");

export const readingOutput = z.object({
  messageId: z.string().describe("Id of the stored message; the same for a retry with the same Idempotency-Key"),
  deviceId: z.string(),
  channel: z.enum(["inventory", "shipments", "telemetry"]),
  receivedAt: timestamp,
});
