// Orders: request and response schemas.
import { z } from "zod";
import { currencyCode, dateOrDateTime, decimalAmount, identifier, pageQuery, resourceId, timestamp } from "./common.js";

export const ORDER_STATUSES = ["pending", "ready", "inProgress", "completed", "cancelled"] as const;
export const orderStatus = z.enum(ORDER_STATUSES);

const dueDate = dateOrDateTime;

export const orderItemInput = z.object({
  productId: identifier,
  quantity: z.number().int().positive().max(1_000_000),
  price: decimalAmount,
});

export const createOrderBody = z
  .object({
    shortId: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only"),
    customerId: identifier,
    dueDate: dueDate.optional(),
    currency: currencyCode,
    orderItems: z.array(orderItemInput).min(1).max(500),
  })
  .strict();

export const orderItemOutput = z.object({ productId: resourceId("prd"), quantity: z.number().int(), price: z.string() });

export const orderOutput = z.object({
  id: resourceId("ord"),
  shortId: z.string(),
  customerId: resourceId("cus"),
  dueDate: z.string().nullable(),
  currency: z.string(),
  status: orderStatus,
  orderItems: z.array(orderItemOutput),
  total: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const listOrdersQuery = pageQuery.extend({
  status: orderStatus.optional(),
  customerId: identifier.optional(),
});

export const updateOrderBody = z
  .object({
    dueDate: dueDate.nullable().optional().describe("null clears the due date"),
    customerId: identifier.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "send at least one of dueDate, customerId")
  .meta({ minProperties: 1 });

export const changeOrderStatusBody = z.object({ status: orderStatus }).strict();
