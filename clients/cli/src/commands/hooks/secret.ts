// waybill hooks rotate: a new signing secret, shown once.
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { printSecret } from "./format.js";

export function registerHookRotate(hooks: Command): void {
  examples(
    hooks
      .command("rotate")
      .description("Replace a hook's signing secret; the old one signs nothing from now on")
      .argument("<id>", "hook id")
      .action(
        action(async (context, id: string) => {
          const rotated = await context.wait("Rotating the secret", data(context.api().POST("/hooks/{id}/rotate", { params: { path: { id } } })));
          if (!context.print.json) context.print.result(`${context.print.c.green("✓")} Secret of ${id} rotated at ${rotated.secretLastRotatedAt}.`);
          printSecret(context, rotated.secret, rotated);
        }),
      ),
    "waybill hooks rotate hook_01j…",
  );
}
