// The inventory service: products, stock levels and reservations over gRPC; events through the outbox.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InventoryServiceService } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { startGrpcServer } from "@waybill/platform/grpc.js";
import { createOutboxRelay } from "@waybill/platform/outbox.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { type ServiceSchema, startRuntime } from "@waybill/platform/runtime.js";
import type { InventoryConfig } from "./config.js";
import { startDeviceStockConsumer } from "./device-stock.js";
import { createInventoryHandlers } from "./grpc-handlers.js";

export const INVENTORY_SCHEMA = "inventory";
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** The schema and migrations of inventory, for startRuntime and the migrate command. */
export const INVENTORY_SERVICE_SCHEMA: ServiceSchema = { service: "inventory", schema: INVENTORY_SCHEMA, migrationsDir: MIGRATIONS_DIR };

export interface InventoryHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
}

export async function startInventory(config: InventoryConfig): Promise<InventoryHandle> {
  const runtime = await startRuntime({ ...INVENTORY_SERVICE_SCHEMA, config, opsPort: config.OPS_PORT });
  try {
    const { pool, bus, logger } = runtime;
    const relay = createOutboxRelay({ pool, bus, schema: INVENTORY_SCHEMA, logger });
    await relay.start();
    runtime.defer(relay.stop);
    const deviceStock = await startDeviceStockConsumer({
      pool,
      topology: bus.topology,
      bus,
      logger,
      registry: runtime.ops.registry,
      health: runtime.consumerHealth,
      ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
      deadLetters: runtime.deadLetters,
    });
    runtime.defer(deviceStock.stop);

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [InventoryServiceService, createInventoryHandlers({ pool, topology: bus.topology }, logger)],
    ]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "inventory started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
