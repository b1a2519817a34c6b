// waybill hooks delete: asks first on a terminal, needs --yes without one.
import type { Command } from "commander";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { confirmed } from "../confirm.js";

export function registerHookDelete(hooks: Command): void {
  examples(
    hooks
      .command("delete")
      .description("Delete a hook (asks first on a terminal)")
      .argument("<id>", "hook id")
      .option("-y, --yes", "do not ask")
      .action(
        action(async (context, id: string, options: { yes?: boolean }) => {
          if (!(await confirmed(context, `Delete hook ${id}? It will receive nothing more.`, options.yes))) return;
          await context.wait("Deleting the hook", context.api().DELETE("/hooks/{id}", { params: { path: { id } } }));
          context.print.result(`${context.print.c.green("✓")} Hook ${id} deleted.`, { id, deleted: true });
        }),
      ),
    "waybill hooks delete hook_01j…",
    "waybill hooks delete hook_01j… --yes",
  );
}
