// Where an order's stock is taken from: for each product, the default location first, then the
// others by name, until the quantity is covered. All or nothing: any shortfall allocates nothing.
import { DEFAULT_LOCATION } from "@waybill/contracts/limits/inventory.js";

export interface Available {
  productId: string;
  location: string;
  available: number;
}

export interface Allocation {
  productId: string;
  location: string;
  quantity: number;
}

export interface Shortage {
  productId: string;
  requested: number;
  available: number;
}

export type AllocationResult = { ok: true; allocations: Allocation[] } | { ok: false; shortages: Shortage[] };

/** Orders locations for taking stock: "default" first, then by name (code point order). */
export function compareLocations(a: string, b: string): number {
  if (a === b) return 0;
  if (a === DEFAULT_LOCATION) return -1;
  if (b === DEFAULT_LOCATION) return 1;
  return a < b ? -1 : 1;
}

/** `demand`: quantity per product (lines of one product already summed). */
export function allocate(demand: ReadonlyMap<string, number>, stock: readonly Available[]): AllocationResult {
  const allocations: Allocation[] = [];
  const shortages: Shortage[] = [];
  for (const [productId, requested] of demand) {
    const places = stock.filter((s) => s.productId === productId && s.available > 0).sort((a, b) => compareLocations(a.location, b.location));
    let remaining = requested;
    const taken: Allocation[] = [];
    for (const place of places) {
      if (remaining === 0) break;
      const quantity = Math.min(place.available, remaining);
      taken.push({ productId, location: place.location, quantity });
      remaining -= quantity;
    }
    if (remaining > 0) shortages.push({ productId, requested, available: requested - remaining });
    else allocations.push(...taken);
  }
  return shortages.length > 0 ? { ok: false, shortages } : { ok: true, allocations };
}
