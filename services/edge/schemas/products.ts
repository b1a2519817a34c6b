// Products: request and response schemas.
import { z } from "zod";

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
