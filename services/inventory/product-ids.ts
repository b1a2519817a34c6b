// What can name a product, and the answer when none is found: shared by products, stock,
// adjustments and reservations without tying them to each other.
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError } from "@waybill/platform/errors.js";
import { hasPrefix } from "@waybill/platform/ids.js";

/** Anything else cannot name a product; checking first keeps bytes PostgreSQL refuses (NUL) away from it. */
export function isProductId(id: string): boolean {
  return hasPrefix(id, "prd");
}

export function productNotFound(id: string): AppError {
  return appError("product_not_found", `No product ${id}.`);
}
