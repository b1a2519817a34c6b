// waybill events list | get: the tenant's event log (newest first).
import type { Command } from "commander";
import { data, type EventRecord, type operations } from "@waybill/sdk";
import { action } from "../../context.js";
import { UsageError } from "../../errors.js";
import { examples } from "../../help.js";
import { defined } from "../../input.js";
import { positiveInt } from "../../options.js";
import { eventFields } from "../../output/event-summary.js";
import type { Column } from "../../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../../pagination.js";

const eventColumns: Column<EventRecord>[] = [
  { header: "id", value: (e) => e.id },
  { header: "time", value: (e) => e.time },
  { header: "kind", value: (e) => e.kind },
  { header: "transaction", value: (e) => e.transactionId },
  { header: "fields", value: (e) => eventFields(e), max: 60 },
];

type EventsQuery = NonNullable<operations["getEvents"]["parameters"]["query"]>;

const EVENT_ID = /^evt_[0-9a-z]{26}$/i;

export function registerEventReads(events: Command): void {
  examples(
    events
      .command("list")
      .description("List events, newest first")
      .option("--kind <kind>", "only this kind (see `waybill event-kinds`)")
      .option("--after <id|time>", "only events after this event id (evt_…) or ISO 8601 time")
      .option("--transaction <txn>", "only the events of this transaction (txn_…, the X-Transaction-Id of the request that caused them)")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { kind?: string; after?: string; transaction?: string; limit: number }) => {
          const api = context.api();
          // The kind is checked by the API (400 with the catalog's names), not here.
          const kind = options.kind as EventsQuery["kind"];
          const filter = defined({ kind, after: options.after, transactionId: options.transaction });
          const page = (query: { limit: number; cursor?: string }) => data(api.GET("/events", { params: { query: { ...query, ...filter } } }));
          const items = await context.wait("Loading events", collect(options.limit, page));
          context.print.list(items, eventColumns, "No events.");
        }),
      ),
    "waybill events list",
    "waybill events list --kind order.status.changed --after 2026-11-01 --json",
    "waybill events list --after evt_01j… --limit 1000 --json",
  );

  examples(
    events
      .command("get")
      .description("Show one event as delivered (its JSON)")
      .argument("<id>", "event id (evt_…)")
      .action(
        action(async (context, id: string) => {
          if (!EVENT_ID.test(id)) throw new UsageError("the id must be an event id (evt_ and 26 letters and digits)");
          const api = context.api();
          const event = await context.wait("Loading the event", data(api.GET("/events/{id}", { params: { path: { id: id.toLowerCase() } } })));
          if (context.print.json) return context.print.result("", event);
          context.print.result(JSON.stringify(event, null, 2));
        }),
      ),
    "waybill events get evt_01j…",
  );
}
