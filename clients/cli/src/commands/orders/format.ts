// How orders look on a terminal: the table's columns and one order's record.
import type { Order } from "@waybill/sdk";
import type { Context } from "../../context.js";
import { cell } from "../../output/printer.js";
import type { Column } from "../../output/table.js";

export const orderColumns: Column<Order>[] = [
  { header: "id", value: (o) => o.id },
  { header: "short id", value: (o) => o.shortId },
  { header: "customer", value: (o) => o.customerId },
  { header: "status", value: (o) => o.status },
  { header: "total", value: (o) => `${o.total} ${o.currency}` },
  { header: "items", value: (o) => String(o.orderItems.length) },
  { header: "due", value: (o) => cell(o.dueDate) },
  { header: "created", value: (o) => o.createdAt },
];

export function orderFields(context: Context, order: Order): [string, string][] {
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
