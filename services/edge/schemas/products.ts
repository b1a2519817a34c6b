// Products: request and response schemas.
import { z } from "zod";
import { MAX_PRODUCT_NAME_LENGTH, MAX_SKU_LENGTH, MAX_STOCK_QUANTITY, TRIMMED_TEXT } from "@waybill/contracts/limits/inventory.js";
import { currencyCode, decimalAmount } from "./common.js";

const sku = z.string().min(1).max(MAX_SKU_LENGTH).regex(TRIMMED_TEXT, "no surrounding spaces or control characters").describe("Unique within the tenant");
const name = z.string().min(1).max(MAX_PRODUCT_NAME_LENGTH).regex(TRIMMED_TEXT, "no surrounding spaces or control characters");
const lowStockThreshold = z.number().int().min(0).max(MAX_STOCK_QUANTITY).describe("inventory.low fires when a location's available stock drops below this");

export const createProductBody = z
  .object({
    sku,
    name,
    price: decimalAmount.nullable().optional().describe("Requires currency"),
    currency: currencyCode.nullable().optional(),
    lowStockThreshold: lowStockThreshold.nullable().optional(),
  })
  .strict()
  .refine((body) => body.price == null || body.currency != null, { path: ["currency"], message: "required when price is set" });

/** Any of the fields; null clears price, currency or lowStockThreshold. */
export const updateProductBody = z
  .object({
    sku: sku.optional(),
    name: name.optional(),
    price: decimalAmount.nullable().optional(),
    currency: currencyCode.nullable().optional(),
    lowStockThreshold: lowStockThreshold.nullable().optional(),
  })
  .strict();

export const productOutput = z.object({
  id: z.string(),
  sku: z.string(),
  name: z.string(),
  price: z.string().nullable(),
  currency: z.string().nullable(),
  lowStockThreshold: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
