// Low-stock and depletion alerts fire on the change that crosses the line, not on every change
// below it, so a receiver gets one alert per crossing (per product and location).
import type { NewEvent } from "../platform/outbox.js";
import type { StockLevel } from "./stock.js";

/**
 * inventory.low when available goes from at/above the product's threshold to below it;
 * inventory.depleted when available goes from above zero to zero. Both can fire at once.
 */
export function crossingEvents(tenantId: string, before: StockLevel, after: StockLevel, lowStockThreshold: number | null): NewEvent[] {
  const events: NewEvent[] = [];
  if (lowStockThreshold !== null && before.available >= lowStockThreshold && after.available < lowStockThreshold) {
    events.push({ tenantId, kind: "inventory.low", payload: { ...after, lowStockThreshold } });
  }
  if (before.available > 0 && after.available === 0) {
    events.push({ tenantId, kind: "inventory.depleted", payload: { ...after } });
  }
  return events;
}
