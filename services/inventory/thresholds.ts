// Low-stock and depletion alerts fire on the change that crosses the line, not on every change
// below it, so a receiver gets one alert per crossing (per product and location). The line can
// move in two ways: stock changes under a fixed threshold, or the threshold moves over the stock.
import type { NewEvent } from "@waybill/contracts/events/outbox-events.js";
import type { StockLevel } from "./stock.js";

/** Below the product's threshold; never without one. */
function isLow(level: StockLevel, lowStockThreshold: number | null): boolean {
  return lowStockThreshold !== null && level.available < lowStockThreshold;
}

/**
 * inventory.low when available goes from at/above the product's threshold to below it;
 * inventory.depleted when available goes from above zero to zero. Both can fire at once.
 */
export function crossingEvents(tenantId: string, before: StockLevel, after: StockLevel, lowStockThreshold: number | null): NewEvent[] {
  const events: NewEvent[] = [];
  if (!isLow(before, lowStockThreshold) && isLow(after, lowStockThreshold)) {
    events.push({ tenantId, kind: "inventory.low", payload: { ...after, lowStockThreshold } });
  }
  if (before.available > 0 && after.available === 0) {
    events.push({ tenantId, kind: "inventory.depleted", payload: { ...after } });
  }
  return events;
}

/**
 * A threshold raised above a location's available stock (or set where there was none) is a
 * crossing too: inventory.low for each such location. Lowering it, or raising it while the
 * location is already low, crosses nothing.
 */
export function thresholdChangeEvents(tenantId: string, levels: readonly StockLevel[], before: number | null, after: number | null): NewEvent[] {
  return levels
    .filter((level) => !isLow(level, before) && isLow(level, after))
    .map((level) => ({ tenantId, kind: "inventory.low", payload: { ...level, lowStockThreshold: after } }));
}
