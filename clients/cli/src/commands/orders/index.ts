// waybill orders …: create (create.ts), list, show, update, change status.
import type { Command } from "commander";
import { Option } from "commander";
import { data } from "@waybill/sdk";
import { action } from "../../context.js";
import { UsageError } from "../../errors.js";
import { examples } from "../../help.js";
import { defined } from "../../input.js";
import { isoTime, positiveInt } from "../../options.js";
import { collect, DEFAULT_LIST_LIMIT } from "../../pagination.js";
import { registerOrderCreate } from "./create.js";
import { orderColumns, orderFields } from "./format.js";

export const ORDER_STATUSES = ["pending", "ready", "inProgress", "completed", "cancelled"] as const;

export function registerOrders(program: Command): void {
  const orders = examples(
    program.command("orders").description("Orders: create, list, show, move through their statuses"),
    "waybill orders create --customer cus_01j… --item prd_01j…:2:19.99",
    "waybill orders list --status pending",
  );

  registerOrderCreate(orders);

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
