import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "../platform/config.js";

export const ordersConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_PORTS.orders.grpc),
  OPS_PORT: port.default(DEFAULT_PORTS.orders.ops),
});

export type OrdersConfig = Readonly<z.output<typeof ordersConfigSchema>>;

export const loadOrdersConfig = (env: Record<string, string | undefined> = process.env): OrdersConfig =>
  loadConfig(ordersConfigSchema, env);
