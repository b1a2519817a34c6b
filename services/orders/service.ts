// The orders service: orders, customers and shipments over gRPC; events through the outbox;
// stock through inventory's gRPC.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { credentials } from "@grpc/grpc-js";
import { InventoryServiceClient } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { OrdersServiceService } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { GRPC_CHANNEL_OPTIONS, startGrpcServer } from "@waybill/platform/grpc.js";
import { grpcClientTracing } from "@waybill/platform/grpc-tracing.js";
import { createOutboxRelay } from "@waybill/platform/outbox.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { createPool } from "@waybill/platform/db.js";
import { type ServiceSchema, startRuntime } from "@waybill/platform/runtime.js";
import type { OrdersConfig } from "./config.js";
import type { OrdersDeps } from "./deps.js";
import { createOrderWriter } from "./order-insert.js";
import { startDeviceShipmentsConsumer } from "./device-shipments.js";
import { createProductExistence, watchProductDeletions } from "./product-existence.js";
import { ordersGrpcHandlers } from "./grpc-handlers.js";
import { createInventoryPort } from "./inventory-port.js";
import { createStockIntents, startStockReconciler } from "./stock-intents.js";

export const ORDERS_SCHEMA = "orders";
/** Connections beside DB_POOL_MAX for stock intents (stock-intents.ts); counted in the deploy budget. */
export const STOCK_INTENTS_POOL_MAX = 2;
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** The schema and migrations of orders, for startRuntime and the migrate command. */
export const ORDERS_SERVICE_SCHEMA: ServiceSchema = { service: "orders", schema: ORDERS_SCHEMA, migrationsDir: MIGRATIONS_DIR };

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
  const runtime = await startRuntime({ ...ORDERS_SERVICE_SCHEMA, config, opsPort: config.OPS_PORT });
  try {
    const { pool, bus, logger } = runtime;
    const inventoryClient = new InventoryServiceClient(config.INVENTORY_GRPC_URL, credentials.createInsecure(), {
      ...GRPC_CHANNEL_OPTIONS,
      ...grpcClientTracing(runtime.service),
    });
    runtime.defer(async () => inventoryClient.close());
    const inventory = createInventoryPort(inventoryClient);
    // Order creation asks which products exist; the answer is remembered (product-existence.ts).
    const products = createProductExistence(inventory);
    const unwatch = watchProductDeletions(bus, products);
    runtime.defer(async () => unwatch());
    // Two connections of their own for stock intents: a status change writes one while its
    // transaction holds a connection of the main pool (stock-intents.ts).
    const intentsPool = createPool({
      databaseUrl: config.DATABASE_URL,
      schema: ORDERS_SCHEMA,
      max: STOCK_INTENTS_POOL_MAX,
      applicationName: "waybill-orders-intents",
      logger,
    });
    runtime.defer(() => intentsPool.end());
    const deps: OrdersDeps = {
      pool,
      topology: bus.topology,
      inventory: { ...inventory, missingProducts: products.missing },
      orderWriter: createOrderWriter(pool),
      stockIntents: createStockIntents(intentsPool),
      logger,
    };
    const reconciler = startStockReconciler({ pool, inventory, logger, minAgeMs: config.STOCK_INTENT_MIN_AGE_MS });
    runtime.defer(reconciler.stop);
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
