// Events: the tenant's event log and the catalog of kinds.
import { z } from "zod";
import { EVENT_KINDS } from "../../platform/events/catalog.js";
import { pageQuery } from "./common.js";

export const eventsQuery = pageQuery.extend({
  kind: z.enum(EVENT_KINDS as [string, ...string[]]).optional(),
  after: z.iso.datetime({ offset: true }).optional(),
});

export const eventOutput = z
  .object({ id: z.string(), kind: z.string(), time: z.string(), transactionId: z.string() })
  .catchall(z.unknown())
  .describe("An event: the common fields plus the flat fields of its kind (see GET /event-kinds)");

export const eventKindsOutput = z.object({
  data: z.array(z.object({ kind: z.string(), schema: z.record(z.string(), z.unknown()) })),
});
