// Request and response schemas of the public API. They validate requests at the edge and are
// the source of the OpenAPI document.
import { z } from "zod";
import { isCurrency } from "../platform/money.js";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "../platform/pagination.js";

export const decimalAmount = z
  .union([z.string().regex(/^-?\d{1,15}(\.\d+)?$/, "must be a decimal string such as \"12.50\""), z.number().finite()])
  .describe("A decimal amount; a string is exact, numbers are accepted when exact");

export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as EUR")
  .refine(isCurrency, "unknown ISO 4217 currency code");

const identifier = z.string().min(1).max(100);

export const orderItemInput = z.object({
  productId: identifier,
  quantity: z.number().int().positive().max(1_000_000),
  price: decimalAmount,
});

export const createOrderBody = z
  .object({
    shortId: z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only"),
    customerId: identifier,
    dueDate: z.iso.datetime({ offset: true }).or(z.iso.date()).optional(),
    currency: currencyCode,
    orderItems: z.array(orderItemInput).min(1).max(500),
  })
  .strict();

export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(DEFAULT_PAGE_LIMIT),
  cursor: z.string().max(200).optional(),
});
