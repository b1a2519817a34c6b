import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "@waybill/platform/config.js";

export const inventoryConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_PORTS.inventory.grpc),
  OPS_PORT: port.default(DEFAULT_PORTS.inventory.ops),
});

export type InventoryConfig = Readonly<z.output<typeof inventoryConfigSchema>>;

export const loadInventoryConfig = (env: Record<string, string | undefined> = process.env): InventoryConfig => loadConfig(inventoryConfigSchema, env);
