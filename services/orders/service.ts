// The orders service: orders, customers and shipments over gRPC; events through the outbox;
// stock through inventory's gRPC.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { credentials } from "@grpc/grpc-js";
import { InventoryServiceClient } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { OrdersServiceService } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { GRPC_CHANNEL_OPTIONS, startGrpcServer } from "@waybill/platform/grpc.js";
import { createOutboxRelay } from "@waybill/platform/outbox.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { startRuntime } from "@waybill/platform/runtime.js";
import type { OrdersConfig } from "./config.js";
import type { OrdersDeps } from "./deps.js";
import { startDeviceShipmentsConsumer } from "./device-shipments.js";
import { ordersGrpcHandlers } from "./grpc-handlers.js";
import { createInventoryPort } from "./inventory-port.js";

export const ORDERS_SCHEMA = "orders";
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export interface OrdersHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
  relay: { start(): Promise<void>; stop(): Promise<void> };
}

export interface OrdersOptions {
  /** Tests start the relay themselves to show the outbox survives a relay outage. */
  startRelay?: boolean;
}

export async function startOrders(config: OrdersConfig, options: OrdersOptions = {}): Promise<OrdersHandle> {
  const runtime = await startRuntime({ service: "orders", schema: ORDERS_SCHEMA, migrationsDir: MIGRATIONS_DIR, config, opsPort: config.OPS_PORT });
  try {
    const { pool, bus, logger } = runtime;
    const inventoryClient = new InventoryServiceClient(config.INVENTORY_GRPC_URL, credentials.createInsecure(), { ...GRPC_CHANNEL_OPTIONS });
    runtime.defer(async () => inventoryClient.close());
    const deps: OrdersDeps = { pool, topology: bus.topology, inventory: createInventoryPort(inventoryClient), logger };
    const relay = createOutboxRelay({ pool, bus, schema: ORDERS_SCHEMA, logger });
    if (options.startRelay !== false) await relay.start();
    runtime.defer(relay.stop);
    const deviceShipments = await startDeviceShipmentsConsumer({
      ...deps,
      bus,
      registry: runtime.ops.registry,
      health: runtime.consumerHealth,
      ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
      deadLetters: runtime.deadLetters,
    });
    runtime.defer(deviceShipments.stop);

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [[OrdersServiceService, ordersGrpcHandlers(deps, logger)]]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "orders started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, relay, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
