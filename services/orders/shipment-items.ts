// Which items a new shipment carries: what the caller listed, checked against what the order
// has left to ship, or by default everything the order's earlier shipments did not cover.
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { FieldError } from "@waybill/platform/errors.js";
import { stockLinesOf, type StockLine } from "./inventory-port.js";

/** Quantity per product the order has not yet put in a shipment (zero or less: all of it shipped). */
function leftToShip(ordered: readonly StockLine[], shipped: readonly StockLine[]): Map<string, number> {
  const left = new Map(stockLinesOf(ordered).map((l) => [l.productId, l.quantity]));
  for (const line of shipped) if (left.has(line.productId)) left.set(line.productId, left.get(line.productId)! - line.quantity);
  return left;
}

/** Whether the shipments together carry every line of the order (only then can delivery complete it). */
export function coversOrder(ordered: readonly StockLine[], shipped: readonly StockLine[]): boolean {
  return [...leftToShip(ordered, shipped).values()].every((quantity) => quantity <= 0);
}

export function resolveShipmentItems(ordered: readonly StockLine[], shipped: readonly StockLine[], requested: readonly StockLine[] | undefined): StockLine[] {
  const left = leftToShip(ordered, shipped);

  if (!requested || requested.length === 0) {
    const rest = [...left].filter(([, quantity]) => quantity > 0).map(([productId, quantity]) => ({ productId, quantity }));
    if (rest.length === 0) throw appError("order_fully_shipped", "Every item of this order is already in a shipment.");
    return rest;
  }

  const errors: FieldError[] = [];
  requested.forEach((item, index) => {
    const remaining = left.get(item.productId);
    if (remaining === undefined) {
      errors.push({ path: `items.${index}.productId`, message: "not a product of this order" });
      return;
    }
    if (item.quantity > remaining) {
      errors.push({ path: `items.${index}.quantity`, message: `more than the order has left to ship (${Math.max(remaining, 0)})` });
    }
    left.set(item.productId, remaining - item.quantity);
  });
  if (errors.length > 0) throw appError("validation_failed", "The shipment's items do not fit the order.", { errors });
  return stockLinesOf(requested);
}
