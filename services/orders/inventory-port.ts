// What orders needs from inventory: reserve, release and consume an order's stock. The gRPC
// client is one implementation; tests can pass a fake. Calls carry the current operation
// context, so inventory's events share the transaction id of the order's.
import type { InventoryServiceClient } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { callUnary } from "@waybill/platform/grpc.js";

export interface StockLine {
  productId: string;
  quantity: number;
}

export interface InventoryPort {
  /** The ids among `productIds` that name no live product of the tenant. */
  missingProducts(tenantId: string, productIds: string[]): Promise<string[]>;
  /** All lines or nothing; 409 insufficient_stock otherwise. `reserved` is false when the order already held a reservation. */
  reserve(tenantId: string, orderId: string, lines: StockLine[]): Promise<{ reserved: boolean }>;
  /** `released` is false when nothing was reserved. */
  release(tenantId: string, orderId: string): Promise<{ released: boolean }>;
  /** `consumed` is false when nothing was reserved. */
  consume(tenantId: string, orderId: string): Promise<{ consumed: boolean }>;
}

export function createInventoryPort(client: InventoryServiceClient): InventoryPort {
  return {
    missingProducts: async (tenantId, productIds) => (await callUnary(client.missingProducts.bind(client), { tenantId, productIds })).productIds,
    reserve: (tenantId, orderId, lines) => callUnary(client.reserveStock.bind(client), { tenantId, orderId, lines }),
    release: (tenantId, orderId) => callUnary(client.releaseStock.bind(client), { tenantId, orderId }),
    consume: (tenantId, orderId) => callUnary(client.consumeStock.bind(client), { tenantId, orderId }),
  };
}

/** One line per product (an order may list a product twice), in first-seen order. */
export function stockLinesOf(items: readonly StockLine[]): StockLine[] {
  const totals = new Map<string, number>();
  for (const item of items) totals.set(item.productId, (totals.get(item.productId) ?? 0) + item.quantity);
  return [...totals].map(([productId, quantity]) => ({ productId, quantity }));
}
