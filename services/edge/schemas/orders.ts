// Orders: request and response schemas.
import { z } from "zod";
import { currencyCode, decimalAmount, identifier } from "./common.js";

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


export const orderItemOutput = z.object({ productId: z.string(), quantity: z.number().int(), price: z.string() });

export const orderOutput = z.object({
  id: z.string(),
  shortId: z.string(),
  customerId: z.string(),
  dueDate: z.string().nullable(),
  currency: z.string(),
  status: z.enum(["pending", "ready", "inProgress", "completed", "cancelled"]),
  orderItems: z.array(orderItemOutput),
  total: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
