import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "@waybill/platform/config.js";

export const ordersConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_PORTS.orders.grpc),
  OPS_PORT: port.default(DEFAULT_PORTS.orders.ops),
  /** Where inventory's gRPC answers: orders reserve, release and consume stock there. */
  INVENTORY_GRPC_URL: z.string().default(`127.0.0.1:${DEFAULT_PORTS.inventory.grpc}`),
});

export type OrdersConfig = Readonly<z.output<typeof ordersConfigSchema>>;

export const loadOrdersConfig = (env: Record<string, string | undefined> = process.env): OrdersConfig => loadConfig(ordersConfigSchema, env);
