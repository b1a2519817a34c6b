import { z } from "zod";
import { baseConfigShape, loadConfig, port } from "@waybill/platform/config.js";

/** Ports of this service when it runs in its own container (each service has its own pair; see docs/configuration.md). */
export const DEFAULT_GRPC_PORT = 50053;
export const DEFAULT_OPS_PORT = 9103;

export const inventoryConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_GRPC_PORT),
  OPS_PORT: port.default(DEFAULT_OPS_PORT),
});

export type InventoryConfig = Readonly<z.output<typeof inventoryConfigSchema>>;

export const loadInventoryConfig = (env: Record<string, string | undefined> = process.env): InventoryConfig => loadConfig(inventoryConfigSchema, env);
