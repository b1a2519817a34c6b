// Events: the tenant's event log and the catalog of kinds.
import { z } from "zod";
import { EVENT_KINDS } from "@waybill/contracts/events/catalog.js";
import { idPattern } from "@waybill/platform/ids.js";
import { pageQuery, resourceId, timestamp } from "./common.js";

/** Event ids are time-sortable (ULID bodies), so "after this event" is a comparison of ids. */
const eventId = z.string().regex(idPattern("evt"), "an event id (evt_…)");

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
});

export const eventOutput = z
  .object({ id: resourceId("evt"), kind: z.string(), time: timestamp, transactionId: resourceId("txn") })
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
