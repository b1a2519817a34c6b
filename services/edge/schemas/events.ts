// Events: the tenant's event log and the catalog of kinds.
import { z } from "zod";
import { EVENT_KINDS } from "@waybill/contracts/events/catalog.js";
import { DEVICE_ID_PATTERN } from "@waybill/contracts/limits/devices.js";
import { CLIENT_TRANSACTION_ID } from "@waybill/platform/context.js";
import { idPattern } from "@waybill/platform/ids.js";
import { pageQuery, resourceId, timestamp } from "./common.js";

/** Event ids are time-sortable (ULID bodies), so "after this event" is a comparison of ids. */
const eventId = z.string().regex(idPattern("evt"), "an event id (evt_…)");

/** The ids `entityId` accepts: those an event's payload names an entity by. */
const ENTITY_ID = new RegExp(`^(?:${(["ord", "shp", "prd", "cus", "hook"] as const).map((prefix) => idPattern(prefix).source.slice(1, -1)).join("|")})$`);

export const eventsQuery = pageQuery.extend({
  kind: z.enum(EVENT_KINDS as [string, ...string[]]).optional(),
  after: z
    .union([eventId, z.iso.datetime({ offset: true }), z.iso.date()])
    .optional()
    .describe(
      "Only events after this point. An event id (evt_…) returns exactly the events with a later id: " +
        "resume from the last id you processed, and no event of the same millisecond is skipped. " +
        "An ISO 8601 date-time or date returns events whose time is strictly later (a date means its midnight UTC).",
    ),
  transactionId: z
    .string()
    .regex(CLIENT_TRANSACTION_ID, "a transaction id (txn_…)")
    .optional()
    .describe("Only the events of this transaction (txn_…): every event of one operation shares it"),
  entityId: z
    .string()
    .regex(ENTITY_ID, "an order, shipment, product, customer or hook id (ord_…, shp_…, prd_…, cus_…, hook_…)")
    .optional()
    .describe(
      "Only the events that name this order, shipment, product, customer or hook in their payload's id fields " +
        "(orderId, shipmentId, productId, customerId, hookId): e.g. an order's id finds its status changes, its stock reservations and its shipments' events",
    ),
  deviceId: z
    .string()
    .regex(DEVICE_ID_PATTERN, "a device id (1 to 64 letters, digits, _ and -)")
    .optional()
    .describe("Only the events of this device (the id it connects with, as its events carry it)"),
});

/** Waybill's own transaction ids are txn_ + a ULID; a client may send its own (X-Transaction-Id), and its events carry that. */
const eventTransactionId = z
  .string()
  .regex(CLIENT_TRANSACTION_ID)
  .describe("The operation's transaction id: txn_ and a ULID, or the X-Transaction-Id a client sent (txn_ and 10–64 letters or digits)");

export const eventOutput = z
  .object({ id: resourceId("evt"), kind: z.string(), time: timestamp, transactionId: eventTransactionId })
  .catchall(z.unknown())
  .describe("An event: the common fields plus the flat fields of its kind (see GET /event-kinds)");

export const eventKindsOutput = z.object({
  data: z.array(z.object({ kind: z.string(), schema: z.record(z.string(), z.unknown()) })),
});

/** `kind=a` or `kind=a,b`: every name must be in the catalog. */
export const eventsStreamQuery = z.object({
  kind: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const kinds = [
        ...new Set(
          (value ?? "")
            .split(",")
            .map((k) => k.trim())
            .filter(Boolean),
        ),
      ];
      const unknown = kinds.filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
      if (unknown.length > 0) ctx.addIssue({ code: "custom", message: `unknown event kind: ${unknown.join(", ")} (see GET /v1/event-kinds)` });
      return kinds;
    })
    .describe("One event kind or a comma-separated list (all kinds when absent)"),
});

/** Last-Event-ID: the id of the last event the reader processed. */
export const lastEventId = eventId;
