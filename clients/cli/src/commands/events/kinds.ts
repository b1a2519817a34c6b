// waybill event-kinds: the catalog of event kinds (--json with the JSON Schema of each).
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { COMMON_EVENT_FIELDS } from "../../output/event-summary.js";

export function registerEventKinds(program: Command): void {
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
                  .filter((f) => !COMMON_EVENT_FIELDS.has(f))
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
