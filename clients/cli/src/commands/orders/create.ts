// waybill orders create: from flags (--customer, --item …, --short-id) or a JSON file; flags win
// over the file's fields.
import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { UsageError } from "../../errors.js";
import { examples } from "../../help.js";
import { defined, readJsonFile } from "../../input.js";
import { isoTime } from "../../options.js";
import { orderFields } from "./format.js";
import { orderItem, type OrderItemInput } from "./items.js";

interface CreateOptions {
  file?: string;
  customer?: string;
  item?: OrderItemInput[];
  shortId?: string;
  currency?: string;
  dueDate?: string;
  idempotencyKey?: string;
}

export const DEFAULT_CURRENCY = "EUR";

/** A short id people can read when none is given: CLI- and 8 random letters and digits. */
const generatedShortId = () => `CLI-${randomBytes(5).toString("hex").toUpperCase().slice(0, 8)}`;

export function registerOrderCreate(orders: Command): void {
  examples(
    orders
      .command("create")
      .description("Create an order from flags or from a JSON file ({ shortId, customerId, currency, orderItems, dueDate? }); flags win over the file")
      .option("--customer <id>", "the customer (cus_…)")
      .option("--item <product:quantity:price>", "an order line, e.g. prd_01j…:2:19.99 (repeat for more lines)", orderItem)
      .option("--short-id <id>", "the order number people see (generated when absent)")
      .option("--currency <code>", `ISO 4217 currency (default ${DEFAULT_CURRENCY})`)
      .option("--due-date <iso>", "when it is due (ISO 8601)", isoTime)
      .option("-f, --file <path>", "the order as JSON; - reads standard input")
      .option("--idempotency-key <key>", "the same key with the same body creates the order once")
      .action(
        action(async (context, options: CreateOptions) => {
          const fromFile = options.file ? await readJsonFile(options.file) : {};
          const flags = defined({
            customerId: options.customer,
            orderItems: options.item,
            shortId: options.shortId,
            currency: options.currency,
            dueDate: options.dueDate,
          });
          const body: Record<string, unknown> = { ...fromFile, ...flags };
          if (!options.file) {
            if (!body.customerId) throw new UsageError("give --customer (or --file)");
            if (!body.orderItems) throw new UsageError("give at least one --item PRODUCT:QUANTITY:PRICE (or --file)");
            body.shortId ??= generatedShortId();
            body.currency ??= DEFAULT_CURRENCY;
          }
          const order = await context.wait(
            "Creating the order",
            data(
              context.api().POST("/orders", {
                body: body as never,
                ...(options.idempotencyKey ? { params: { header: { "Idempotency-Key": options.idempotencyKey } } } : {}),
              }),
            ),
          );
          context.print.item(order, orderFields(context, order));
        }),
      ),
    "waybill orders create --customer cus_01j… --item prd_01j…:2:19.99 --item prd_01k…:1:5 --short-id A-1001",
    "waybill orders create --file order.json",
    `echo '{"shortId":"A-1","customerId":"cus_…","currency":"EUR","orderItems":[{"productId":"prd_…","quantity":1,"price":"9.90"}]}' | waybill orders create --file -`,
  );
}
