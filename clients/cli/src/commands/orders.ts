// waybill orders …: create from a JSON file, list, show, change status.
import type { Command } from "commander";
import { Option } from "commander";
import { data, type Order } from "@waybill/sdk";
import { action, type Context } from "../context.js";
import { examples } from "../help.js";
import { defined, readJsonFile } from "../input.js";
import { isoTime, positiveInt } from "../options.js";
import { cell } from "../output/printer.js";
import type { Column } from "../output/table.js";
import { collect, DEFAULT_LIST_LIMIT } from "../pagination.js";
import { UsageError } from "../errors.js";

export const ORDER_STATUSES = ["pending", "ready", "inProgress", "completed", "cancelled"] as const;

const orderColumns: Column<Order>[] = [
  { header: "id", value: (o) => o.id },
  { header: "short id", value: (o) => o.shortId },
  { header: "customer", value: (o) => o.customerId },
  { header: "status", value: (o) => o.status },
  { header: "total", value: (o) => `${o.total} ${o.currency}` },
  { header: "items", value: (o) => String(o.orderItems.length) },
  { header: "due", value: (o) => cell(o.dueDate) },
  { header: "created", value: (o) => o.createdAt },
];

function orderFields(context: Context, order: Order): [string, string][] {
  return [
    ["id", order.id],
    ["short id", order.shortId],
    ["customer", order.customerId],
    ["status", context.print.c.cyan(order.status)],
    ["total", `${order.total} ${order.currency}`],
    ["due", cell(order.dueDate)],
    ...order.orderItems.map((item, i) => [`item ${i + 1}`, `${item.quantity} × ${item.productId} at ${item.price}`] as [string, string]),
    ["created", order.createdAt],
    ["updated", order.updatedAt],
  ];
}

export function registerOrders(program: Command): void {
  const orders = examples(
    program.command("orders").description("Orders: create, list, show, move through their statuses"),
    "waybill orders create --file order.json",
    "waybill orders list --status pending",
  );

  examples(
    orders
      .command("create")
      .description("Create an order from a JSON file ({ shortId, customerId, currency, orderItems, dueDate? })")
      .requiredOption("-f, --file <path>", "the order as JSON; - reads standard input")
      .option("--idempotency-key <key>", "the same key with the same body creates the order once")
      .action(
        action(async (context, options: { file: string; idempotencyKey?: string }) => {
          const body = await readJsonFile(options.file);
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
    "waybill orders create --file order.json",
    `echo '{"shortId":"A-1","customerId":"cus_…","currency":"EUR","orderItems":[{"productId":"prd_…","quantity":1,"price":"9.90"}]}' | waybill orders create --file -`,
  );

  examples(
    orders
      .command("list")
      .description("List orders, newest first")
      .addOption(new Option("--status <status>", "only orders in this status").choices(ORDER_STATUSES))
      .option("--customer <id>", "only this customer's orders")
      .option("--limit <n>", "at most this many", positiveInt, DEFAULT_LIST_LIMIT)
      .action(
        action(async (context, options: { status?: (typeof ORDER_STATUSES)[number]; customer?: string; limit: number }) => {
          const api = context.api();
          const filter = defined({ status: options.status, customerId: options.customer });
          const items = await context.wait(
            "Loading orders",
            collect(options.limit, (query) => data(api.GET("/orders", { params: { query: { ...query, ...filter } } }))),
          );
          context.print.list(items, orderColumns, "No orders.");
        }),
      ),
    "waybill orders list",
    "waybill orders list --status inProgress --customer cus_01j… --json",
  );

  examples(
    orders
      .command("get")
      .description("Show one order")
      .argument("<id>", "order id (ord_…)")
      .action(
        action(async (context, id: string) => {
          const order = await context.wait("Loading the order", data(context.api().GET("/orders/{id}", { params: { path: { id } } })));
          context.print.item(order, orderFields(context, order));
        }),
      ),
    "waybill orders get ord_01j…",
  );

  examples(
    orders
      .command("update")
      .description("Change an order's due date or customer")
      .argument("<id>", "order id")
      .option("--due-date <iso>", "new due date (ISO 8601)", isoTime)
      .option("--customer <id>", "new customer id")
      .action(
        action(async (context, id: string, options: { dueDate?: string; customer?: string }) => {
          const body = defined({ dueDate: options.dueDate, customerId: options.customer });
          if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give --due-date or --customer");
          const order = await context.wait("Updating the order", data(context.api().PUT("/orders/{id}", { params: { path: { id } }, body: body as never })));
          context.print.item(order, orderFields(context, order));
        }),
      ),
    "waybill orders update ord_01j… --due-date 2026-12-24T12:00:00Z",
  );

  examples(
    orders
      .command("status")
      .description("Move an order to another status (pending → ready → inProgress → completed, or cancelled)")
      .argument("<id>", "order id")
      .argument("<status>", `one of ${ORDER_STATUSES.join(", ")}`)
      .action(
        action(async (context, id: string, status: string) => {
          if (!(ORDER_STATUSES as readonly string[]).includes(status)) throw new UsageError(`status must be one of ${ORDER_STATUSES.join(", ")}`);
          const order = await context.wait(
            "Changing the status",
            data(context.api().POST("/orders/{id}/status", { params: { path: { id } }, body: { status: status as (typeof ORDER_STATUSES)[number] } })),
          );
          context.print.result(`${context.print.c.green("✓")} Order ${order.id} is ${order.status}.`, order);
        }),
      ),
    "waybill orders status ord_01j… ready",
    "waybill orders status ord_01j… cancelled",
  );
}
