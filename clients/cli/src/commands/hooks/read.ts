// waybill hooks list | get.
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { positiveInt } from "../../options.js";
import { collect, DEFAULT_LIST_LIMIT } from "../../pagination.js";
import { hookColumns, hookFields } from "./format.js";

export function registerHookReads(hooks: Command): void {
  examples(
    hooks
      .command("list")
      .description("List hooks, newest first")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { limit: number }) => {
          const api = context.api();
          const items = await context.wait(
            "Loading hooks",
            collect(options.limit, (query) => data(api.GET("/hooks", { params: { query } }))),
          );
          context.print.list(items, hookColumns, "No hooks yet: create one with `waybill hooks create`.");
        }),
      ),
    "waybill hooks list",
    "waybill hooks list --json | jq '.[].id'",
  );

  examples(
    hooks
      .command("get")
      .description("Show one hook")
      .argument("<id>", "hook id (hook_…)")
      .action(
        action(async (context, id: string) => {
          const hook = await context.wait("Loading the hook", data(context.api().GET("/hooks/{id}", { params: { path: { id } } })));
          context.print.item(hook, hookFields(context, hook));
        }),
      ),
    "waybill hooks get hook_01j…",
  );
}
