// Products: request and response schemas.
import { z } from "zod";
import { MAX_PRODUCT_NAME_LENGTH, MAX_SKU_LENGTH, MAX_STOCK_QUANTITY, TRIMMED_TEXT } from "@waybill/contracts/limits/inventory.js";
import { currencyCode, decimalAmount, resourceId, timestamp } from "./common.js";

const sku = z.string().min(1).max(MAX_SKU_LENGTH).regex(TRIMMED_TEXT, "no surrounding spaces or control characters").describe("Unique within the tenant");
const name = z.string().min(1).max(MAX_PRODUCT_NAME_LENGTH).regex(TRIMMED_TEXT, "no surrounding spaces or control characters");
const lowStockThreshold = z.number().int().min(0).max(MAX_STOCK_QUANTITY).describe("inventory.low fires when a location's available stock drops below this");

/** A price needs its currency, in JSON Schema's if/then. */
const PRICE_NEEDS_CURRENCY = {
  if: { required: ["price"], properties: { price: { not: { type: "null" } } } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword, not a thenable
  then: { required: ["currency"], properties: { currency: { type: "string" } } },
};

export const createProductBody = z
  .object({
    sku,
    name,
    price: decimalAmount.nullable().optional().describe("Requires currency"),
    currency: currencyCode.nullable().optional(),
    lowStockThreshold: lowStockThreshold.nullable().optional(),
  })
  .strict()
  .refine((body) => body.price == null || body.currency != null, { path: ["currency"], message: "required when price is set" })
  .meta(PRICE_NEEDS_CURRENCY);

/** Any of the fields; null clears price, currency or lowStockThreshold. */
export const updateProductBody = z
  .object({
    sku: sku.optional(),
    name: name.optional(),
    price: decimalAmount.nullable().optional(),
    currency: currencyCode.nullable().optional(),
    lowStockThreshold: lowStockThreshold.nullable().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "send at least one of sku, name, price, currency, lowStockThreshold")
  .meta({ minProperties: 1 });

export const productOutput = z.object({
  id: resourceId("prd"),
  sku: z.string(),
  name: z.string(),
  price: z.string().nullable(),
  currency: z.string().nullable(),
  lowStockThreshold: z.number().int().nullable(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
