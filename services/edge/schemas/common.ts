// Schemas shared by the resources of the public API. Each resource's request and response
// schemas live beside this file; they validate requests and are the source of the OpenAPI document.
import { z } from "zod";
import { idPattern, type IdPrefix } from "@waybill/platform/ids.js";
import { CURRENCY_CODES, isCurrency } from "@waybill/platform/money.js";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "@waybill/platform/pagination.js";

export const decimalAmount = z
  .union([z.string().regex(/^-?\d{1,15}(\.\d+)?$/, 'must be a decimal string such as "12.50"'), z.number().finite()])
  .describe(
    'A decimal amount, best as a string ("12.50"); a JSON number is accepted when it is exactly that decimal. ' +
      "At most the currency's minor-unit decimals (2 for EUR, 0 for JPY, 3 for BHD) and 15 integer digits; anything else is a 422.",
  );

const CURRENCY_EXPECTED = "must be a 3-letter ISO 4217 currency code such as EUR";

// abort: a value that is not three capitals gets that one message, not also "unknown code".
export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, { message: CURRENCY_EXPECTED, abort: true })
  .refine(isCurrency, "is not a known ISO 4217 currency code (3 letters, such as EUR)")
  .meta({ enum: [...CURRENCY_CODES] });

/** A calendar date or a date-time with offset; a union's own failure says only "Invalid input". */
export const dateOrDateTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: 'must be an ISO 8601 date such as "2026-12-01" or a date-time with offset such as "2026-12-01T17:00:00Z"',
});

export const identifier = z.string().min(1).max(100);

/** An id the API answers with: its type prefix and a ULID body (ord_01j…). Answers only; inputs take any identifier. */
export function resourceId(prefix: IdPrefix) {
  return z.string().regex(idPattern(prefix));
}

/** A timestamp the API answers with (ISO 8601 UTC). */
export const timestamp = z.string().meta({ format: "date-time" });

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  cursor: z.string().max(200).optional(),
});

/** The list answer of API.md's conventions. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), nextCursor: z.string().nullable() });
}
