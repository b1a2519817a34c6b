// waybill events list, waybill event-kinds: the tenant's event log and the catalog of kinds.
import type { Command } from "commander";
import { data, type EventRecord } from "@waybill/sdk";
import { action } from "../context.js";
import { examples } from "../help.js";
import { defined } from "../input.js";
import { positiveInt } from "../options.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";

/** The fields every event has; the rest is the kind's own. */
const COMMON = new Set(["id", "kind", "time", "transactionId"]);

const eventColumns: Column<EventRecord>[] = [
  { header: "id", value: (e) => e.id },
  { header: "time", value: (e) => e.time },
  { header: "kind", value: (e) => e.kind },
  { header: "transaction", value: (e) => e.transactionId },
  {
    header: "fields",
    value: (e) =>
      Object.entries(e)
        .filter(([key]) => !COMMON.has(key))
        .map(([key, value]) => `${key}=${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
        .join(" "),
    max: 60,
  },
];

export function registerEvents(program: Command): void {
  const events = examples(program.command("events").description("The tenant's event log"), "waybill events list --kind order.created");

  examples(
    events
      .command("list")
      .description("List events, newest first")
      .option("--kind <kind>", "only this kind (see `waybill event-kinds`)")
      .option("--after <id|time>", "only events after this event id (evt_…) or ISO 8601 time")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { kind?: string; after?: string; limit: number }) => {
          const api = context.api();
          const filter = defined({ kind: options.kind, after: options.after });
          const items = await context.wait(
            "Loading events",
            collect(options.limit, (query) => data(api.GET("/events", { params: { query: { ...query, ...filter } as never } }))),
          );
          context.print.list(items, eventColumns, "No events.");
        }),
      ),
    "waybill events list",
    "waybill events list --kind order.status.changed --after 2026-11-01 --json",
    "waybill events list --after evt_01j… --limit 1000 --json",
  );

  examples(
    program
      .command("event-kinds")
      .description("List every event kind (--json adds the JSON Schema of each)")
      .action(
        action(async (context) => {
          const kinds = await context.wait("Loading the catalog", data(context.api().GET("/event-kinds")));
          context.print.list(kinds.data, [
            { header: "kind", value: (k) => k.kind },
            {
              header: "fields",
              value: (k) =>
                Object.keys((k.schema as { properties?: Record<string, unknown> }).properties ?? {})
                  .filter((f) => !COMMON.has(f))
                  .join(", "),
              max: 90,
            },
          ]);
        }),
      ),
    "waybill event-kinds",
    "waybill event-kinds --json | jq '.[] | select(.kind == \"order.created\") .schema'",
  );
}
