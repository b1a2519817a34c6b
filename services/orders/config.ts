import { z } from "zod";
import { baseConfigShape, loadConfig, port } from "@waybill/platform/config.js";
import { STOCK_INTENT_MIN_AGE_MS } from "./stock-intents.js";

/** Ports of this service when it runs in its own container (each service has its own pair; see docs/configuration.md). */
export const DEFAULT_GRPC_PORT = 50052;
export const DEFAULT_OPS_PORT = 9102;

export const ordersConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_GRPC_PORT),
  OPS_PORT: port.default(DEFAULT_OPS_PORT),
  /** Where inventory's gRPC answers: orders reserve, release and consume stock there. */
  INVENTORY_GRPC_URL: z.string().default("127.0.0.1:50053"),
  /** How old an interrupted status change's stock intent must be before it is reconciled (stock-intents.ts). */
  STOCK_INTENT_MIN_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(STOCK_INTENT_MIN_AGE_MS),
});

export type OrdersConfig = Readonly<z.output<typeof ordersConfigSchema>>;

export const loadOrdersConfig = (env: Record<string, string | undefined> = process.env): OrdersConfig => loadConfig(ordersConfigSchema, env);
