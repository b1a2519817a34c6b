// waybill inventory list|adjust: stock levels and counted corrections.
import type { Command } from "commander";
import { data, type StockLevel } from "@waybill/sdk";
import { action } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { defined } from "../input.js";
import { integer, positiveInt } from "../options.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";

const stockColumns: Column<StockLevel>[] = [
  { header: "product", value: (s) => s.productId },
  { header: "location", value: (s) => s.location },
  { header: "on hand", value: (s) => String(s.onHand) },
  { header: "reserved", value: (s) => String(s.reserved) },
  { header: "available", value: (s) => String(s.available) },
];

export function registerInventory(program: Command): void {
  const inventory = examples(program.command("inventory").description("Stock levels: list, adjust"), "waybill inventory list --product prd_01j…");

  examples(
    inventory
      .command("list")
      .description("List stock levels per product and location")
      .option("--product <id>", "only this product")
      .option("--location <name>", "only this location")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { product?: string; location?: string; limit: number }) => {
          const api = context.api();
          const filter = defined({ productId: options.product, location: options.location });
          const items = await context.wait(
            "Loading stock",
            collect(options.limit, (query) => data(api.GET("/inventory", { params: { query: { ...query, ...filter } } }))),
          );
          context.print.list(items, stockColumns, "No stock recorded.");
        }),
      ),
    "waybill inventory list",
    "waybill inventory list --product prd_01j… --json",
  );

  examples(
    inventory
      .command("adjust")
      .description("Adjust a product's stock by a delta, or set it to a counted value")
      .requiredOption("--product <id>", "product id (prd_…)")
      .option("--delta <n>", "add (or with a minus, remove) this many", integer)
      .option("--set-to <n>", "set the count on hand to this", integer)
      .requiredOption("--reason <text>", "why (kept with the adjustment)")
      .option("--location <name>", "the location (the default one when absent)")
      .action(
        action(async (context, options: { product: string; delta?: number; setTo?: number; reason: string; location?: string }) => {
          if ((options.delta === undefined) === (options.setTo === undefined)) throw new UsageError("give exactly one of --delta and --set-to");
          const body = defined({ productId: options.product, delta: options.delta, setTo: options.setTo, reason: options.reason, location: options.location });
          const adjusted = await context.wait("Adjusting stock", data(context.api().POST("/inventory/adjustments", { body: body as never })));
          context.print.result(
            `${context.print.c.green("✓")} ${adjusted.productId} at ${adjusted.location}: ${adjusted.onHand} on hand, ${adjusted.reserved} reserved, ${adjusted.available} available (${adjusted.delta >= 0 ? "+" : ""}${adjusted.delta}).`,
            adjusted,
          );
        }),
      ),
    "waybill inventory adjust --product prd_01j… --delta 24 --reason 'delivery from supplier'",
    "waybill inventory adjust --product prd_01j… --set-to 7 --reason 'stock count'",
  );
}
