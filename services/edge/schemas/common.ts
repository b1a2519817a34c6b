// Schemas shared by the resources of the public API. Each resource's request and response
// schemas live beside this file; they validate requests and are the source of the OpenAPI document.
import { z } from "zod";
import { isCurrency } from "../../platform/money.js";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "../../platform/pagination.js";

export const decimalAmount = z
  .union([z.string().regex(/^-?\d{1,15}(\.\d+)?$/, "must be a decimal string such as \"12.50\""), z.number().finite()])
  .describe("A decimal amount; a string is exact, numbers are accepted when exact");

export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR")
  .refine(isCurrency, "unknown ISO 4217 currency code");

export const identifier = z.string().min(1).max(100);

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  cursor: z.string().max(200).optional(),
});

/** The list answer of API.md's conventions. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}
