import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "@waybill/platform/config.js";
import { STOCK_INTENT_MIN_AGE_MS } from "./stock-intents.js";

export const ordersConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_PORTS.orders.grpc),
  OPS_PORT: port.default(DEFAULT_PORTS.orders.ops),
  /** Where inventory's gRPC answers: orders reserve, release and consume stock there. */
  INVENTORY_GRPC_URL: z.string().default(`127.0.0.1:${DEFAULT_PORTS.inventory.grpc}`),
  /** How old an interrupted status change's stock intent must be before it is reconciled (stock-intents.ts). */
  STOCK_INTENT_MIN_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(STOCK_INTENT_MIN_AGE_MS),
});

export type OrdersConfig = Readonly<z.output<typeof ordersConfigSchema>>;

export const loadOrdersConfig = (env: Record<string, string | undefined> = process.env): OrdersConfig => loadConfig(ordersConfigSchema, env);
