// waybill hooks update | pause | resume: PUT /hooks/{id} with only the fields the flags name.
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { UsageError } from "../../errors.js";
import { examples } from "../../help.js";
import { defined } from "../../input.js";
import { httpUrl } from "../../options.js";
import { hookFields, type Ordering, orderingOption } from "./format.js";

export function registerHookUpdates(hooks: Command): void {
  examples(
    hooks
      .command("update")
      .description("Change a hook's name, URL, event kind or ordering")
      .argument("<id>", "hook id")
      .option("--name <name>", "new name")
      .option("--url <url>", "new URL", httpUrl)
      .option("--on <kind>", "new event kind")
      .addOption(orderingOption())
      .action(
        action(async (context, id: string, options: { name?: string; url?: string; on?: string; ordering?: Ordering }) => {
          // Only the command's own flags: the global ones (--json, --color …) are no hook fields.
          const body = defined({ name: options.name, url: options.url, on: options.on, ordering: options.ordering });
          if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give --name, --url, --on or --ordering");
          const hook = await context.wait("Updating the hook", data(context.api().PUT("/hooks/{id}", { params: { path: { id } }, body: body as never })));
          context.print.item(hook, hookFields(context, hook));
        }),
      ),
    "waybill hooks update hook_01j… --name renamed",
    "waybill hooks update hook_01j… --url https://shop.example.com/v2/hooks --ordering perEntity",
  );

  for (const [verb, status, text] of [
    ["pause", "paused", "Pause a hook: it receives nothing, and events meanwhile are not queued for it"],
    ["resume", "active", "Resume a paused hook"],
  ] as const) {
    examples(
      hooks
        .command(verb)
        .description(text)
        .argument("<id>", "hook id")
        .action(
          action(async (context, id: string) => {
            const hook = await context.wait(
              `${verb === "pause" ? "Pausing" : "Resuming"} the hook`,
              data(context.api().PUT("/hooks/{id}", { params: { path: { id } }, body: { status } })),
            );
            context.print.result(`${context.print.c.green("✓")} Hook ${hook.id} is ${hook.status}.`, hook);
          }),
        ),
      `waybill hooks ${verb} hook_01j…`,
    );
  }
}
