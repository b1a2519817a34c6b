// waybill products …: create, list, show, update, delete.
import type { Command } from "commander";
import { data, type Product } from "@waybill/sdk";
import { action } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { defined } from "../input.js";
import { integer, positiveInt } from "../options.js";
import { cell } from "../output/printer.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";
import { confirmed } from "./confirm.js";

const productColumns: Column<Product>[] = [
  { header: "id", value: (p) => p.id },
  { header: "sku", value: (p) => p.sku },
  { header: "name", value: (p) => p.name, max: 30 },
  { header: "price", value: (p) => (p.price ? `${p.price} ${p.currency ?? ""}`.trim() : "-") },
  { header: "low stock at", value: (p) => cell(p.lowStockThreshold) },
  { header: "created", value: (p) => p.createdAt },
];

const productFields = (p: Product): [string, string][] => [
  ["id", p.id],
  ["sku", p.sku],
  ["name", p.name],
  ["price", p.price ? `${p.price} ${p.currency ?? ""}`.trim() : "-"],
  ["low stock at", cell(p.lowStockThreshold)],
  ["created", p.createdAt],
  ["updated", p.updatedAt],
];

interface ProductOptions {
  sku?: string;
  name?: string;
  price?: string;
  currency?: string;
  lowStock?: number;
}

const bodyOf = (o: ProductOptions) => defined({ sku: o.sku, name: o.name, price: o.price, currency: o.currency, lowStockThreshold: o.lowStock });

function productOptions(command: Command, required: boolean): Command {
  const add = (flags: string, text: string) => (required ? command.requiredOption(flags, text) : command.option(flags, text));
  add("--sku <sku>", "stock keeping unit, unique in the tenant");
  add("--name <name>", "name");
  return command
    .option("--price <decimal>", 'unit price as a decimal string, e.g. "12.50"')
    .option("--currency <code>", "ISO 4217 currency, e.g. EUR")
    .option("--low-stock <n>", "emit inventory.low when available stock falls to this", integer);
}

export function registerProducts(program: Command): void {
  const products = examples(
    program.command("products").description("Products: create, list, show, update, delete"),
    "waybill products create --sku W-1 --name Widget --price 2.50 --currency EUR",
  );

  examples(
    productOptions(products.command("create").description("Create a product"), true).action(
      action(async (context, options: ProductOptions) => {
        const product = await context.wait("Creating the product", data(context.api().POST("/products", { body: bodyOf(options) as never })));
        context.print.item(product, productFields(product));
      }),
    ),
    "waybill products create --sku W-1 --name Widget --price 2.50 --currency EUR --low-stock 5",
  );

  examples(
    products
      .command("list")
      .description("List products, newest first")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { limit: number }) => {
          const api = context.api();
          const items = await context.wait(
            "Loading products",
            collect(options.limit, (query) => data(api.GET("/products", { params: { query } }))),
          );
          context.print.list(items, productColumns, "No products.");
        }),
      ),
    "waybill products list",
  );

  examples(
    products
      .command("get")
      .description("Show one product")
      .argument("<id>", "product id (prd_…)")
      .action(
        action(async (context, id: string) => {
          const product = await context.wait("Loading the product", data(context.api().GET("/products/{id}", { params: { path: { id } } })));
          context.print.item(product, productFields(product));
        }),
      ),
    "waybill products get prd_01j…",
  );

  examples(
    productOptions(products.command("update").description("Change a product").argument("<id>", "product id"), false).action(
      action(async (context, id: string, options: ProductOptions) => {
        const body = bodyOf(options);
        if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give --sku, --name, --price, --currency or --low-stock");
        const product = await context.wait(
          "Updating the product",
          data(context.api().PUT("/products/{id}", { params: { path: { id } }, body: body as never })),
        );
        context.print.item(product, productFields(product));
      }),
    ),
    "waybill products update prd_01j… --price 2.75",
  );

  examples(
    products
      .command("delete")
      .description("Delete a product (asks first on a terminal)")
      .argument("<id>", "product id")
      .option("-y, --yes", "do not ask")
      .action(
        action(async (context, id: string, options: { yes?: boolean }) => {
          if (!(await confirmed(context, `Delete product ${id}?`, options.yes))) return;
          await context.wait("Deleting the product", context.api().DELETE("/products/{id}", { params: { path: { id } } }));
          context.print.result(`${context.print.c.green("✓")} Product ${id} deleted.`, { id, deleted: true });
        }),
      ),
    "waybill products delete prd_01j… --yes",
  );
}
