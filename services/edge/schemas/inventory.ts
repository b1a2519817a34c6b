// Inventory: stock levels and adjustments, request and response schemas.
import { z } from "zod";
import { MAX_LOCATION_LENGTH, MAX_REASON_LENGTH, MAX_STOCK_QUANTITY, REASON_TEXT, TRIMMED_TEXT } from "@waybill/contracts/limits/inventory.js";
import { identifier, pageQuery, resourceId, timestamp } from "./common.js";

const location = z.string().min(1).max(MAX_LOCATION_LENGTH).regex(TRIMMED_TEXT, "no surrounding spaces or control characters");

export const stockQuery = pageQuery.extend({
  productId: identifier.optional(),
  location: location.optional(),
});

export const adjustmentBody = z
  .object({
    productId: identifier,
    location: location.optional().describe('Defaults to "default"'),
    delta: z
      .number()
      .int()
      .min(-MAX_STOCK_QUANTITY)
      .max(MAX_STOCK_QUANTITY)
      .refine((d) => d !== 0, "must not be 0")
      .meta({ not: { const: 0 } })
      .optional(),
    setTo: z.number().int().min(0).max(MAX_STOCK_QUANTITY).optional(),
    reason: z.string().trim().min(1).max(MAX_REASON_LENGTH).regex(REASON_TEXT, "no control characters but line breaks and tabs"),
  })
  .strict()
  .refine((body) => (body.delta === undefined) !== (body.setTo === undefined), { path: ["delta"], message: "give exactly one of delta and setTo" })
  .meta({ oneOf: [{ required: ["delta"] }, { required: ["setTo"] }] });

export const stockLevelOutput = z.object({
  productId: resourceId("prd"),
  location: z.string(),
  onHand: z.number().int(),
  reserved: z.number().int(),
  available: z.number().int().describe("onHand - reserved, never negative"),
});

export const adjustmentOutput = stockLevelOutput.extend({
  id: resourceId("adj").describe("The adjustment's id (adj_…)"),
  delta: z.number().int().describe("What onHand changed by (computed for setTo)"),
  reason: z.string(),
  createdAt: timestamp,
});
