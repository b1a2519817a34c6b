// waybill hooks create: registers a webhook and prints its signing secret once.
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { examples } from "../../help.js";
import { httpUrl } from "../../options.js";
import { hookFields, type Ordering, orderingOption, printSecret } from "./format.js";

export function registerHookCreate(hooks: Command): void {
  examples(
    hooks
      .command("create")
      .description("Register a webhook; prints its signing secret once")
      .requiredOption("--name <name>", "a name for people")
      .requiredOption("--url <url>", "where the signed deliveries are POSTed (the server: `waybill --url … hooks create` or WAYBILL_URL)", httpUrl)
      .requiredOption("--on <kind>", "the event kind it receives (see `waybill event-kinds`)")
      .addOption(orderingOption())
      .action(
        action(async (context, options: { name: string; url: string; on: string; ordering?: Ordering }) => {
          const body = { name: options.name, url: options.url, on: options.on as never, ...(options.ordering ? { ordering: options.ordering } : {}) };
          const created = await context.wait("Creating the hook", data(context.api().POST("/hooks", { body })));
          if (!context.print.json) context.print.item(created, hookFields(context, created));
          printSecret(context, created.secret, created);
        }),
      ),
    "waybill hooks create --name shop --url https://shop.example.com/hooks --on order.created",
    "waybill hooks create --name erp --url https://erp.example.com/hooks --on order.status.changed --ordering perEntity",
  );
}
