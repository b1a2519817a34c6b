// The inventory service: products, stock levels and reservations, over gRPC.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InventoryServiceService, type ListProductsRequest, type ListProductsResponse } from "../gen/waybill/inventory/v1/inventory.js";
import { startGrpcServer, unary } from "../platform/grpc.js";
import { DEFAULT_PAGE_LIMIT } from "../platform/pagination.js";
import type { ServiceHandle } from "../platform/run-main.js";
import { startRuntime } from "../platform/runtime.js";
import type { InventoryConfig } from "./config.js";
import { listProducts } from "./products.js";

export const INVENTORY_SCHEMA = "inventory";
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export interface InventoryHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
}

export async function startInventory(config: InventoryConfig): Promise<InventoryHandle> {
  const runtime = await startRuntime({ service: "inventory", schema: INVENTORY_SCHEMA, migrationsDir: MIGRATIONS_DIR, config, opsPort: config.OPS_PORT });
  try {
    const { pool, logger } = runtime;
    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [
        InventoryServiceService,
        {
          listProducts: unary<ListProductsRequest, ListProductsResponse>(logger, async (request) => {
            const page = await listProducts(pool, request.tenantId, request.limit || DEFAULT_PAGE_LIMIT, request.cursor);
            return {
              data: page.data.map((p) => ({ ...p, price: p.price ?? undefined, currency: p.currency ?? undefined, lowStockThreshold: p.lowStockThreshold ?? undefined })),
              nextCursor: page.nextCursor ?? undefined,
            };
          }),
        },
      ],
    ]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "inventory started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
