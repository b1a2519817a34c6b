// What counts as low stock: at or under the product's threshold, or nothing available at all
// (whatever the threshold, or without one).
import type { Product, StockLevel } from "@waybill/sdk";

export interface StockState {
  product: Product;
  available: number;
  onHand: number;
  reserved: number;
  status: "out" | "low" | "ok";
}

export function stockOf(product: Product, stock: StockLevel[]): StockState {
  const levels = stock.filter((s) => s.productId === product.id);
  const available = levels.reduce((sum, s) => sum + s.available, 0);
  const onHand = levels.reduce((sum, s) => sum + s.onHand, 0);
  const reserved = levels.reduce((sum, s) => sum + s.reserved, 0);
  const threshold = product.lowStockThreshold;
  const status = available <= 0 ? "out" : threshold !== null && threshold !== undefined && available <= threshold ? "low" : "ok";
  return { product, available, onHand, reserved, status };
}

export function lowStock(products: Product[], stock: StockLevel[]): StockState[] {
  return products.map((p) => stockOf(p, stock)).filter((s) => s.status !== "ok");
}
