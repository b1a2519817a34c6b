// The orders service: orders, customers and shipments over gRPC; events through the outbox.
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  OrdersServiceService,
  type CreateOrderRequest,
  type CreateOrderResponse,
  type GetOrderRequest,
  type GetOrderResponse,
  type Order as OrderMessage,
} from "../gen/waybill/orders/v1/orders.js";
import { startGrpcServer, unary } from "../platform/grpc.js";
import { createOutboxRelay } from "../platform/outbox.js";
import type { ServiceHandle } from "../platform/run-main.js";
import { startRuntime } from "../platform/runtime.js";
import type { OrdersConfig } from "./config.js";
import { createOrder, getOrder, type Order } from "./orders.js";

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
    const deps = { pool, topology: bus.topology };
    const relay = createOutboxRelay({ pool, bus, schema: ORDERS_SCHEMA, logger });
    if (options.startRelay !== false) await relay.start();
    runtime.defer(relay.stop);

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [
        OrdersServiceService,
        {
          createOrder: unary<CreateOrderRequest, CreateOrderResponse>(logger, async (request) => {
            const { value, replayed } = await createOrder(
              deps,
              request.tenantId,
              {
                shortId: request.shortId,
                customerId: request.customerId,
                dueDate: request.dueDate ?? null,
                currency: request.currency,
                orderItems: request.orderItems,
              },
              request.idempotency,
            );
            return { order: toMessage(value), replayed };
          }),
          getOrder: unary<GetOrderRequest, GetOrderResponse>(logger, async (request) => ({
            order: toMessage(await getOrder(pool, request.tenantId, request.id)),
          })),
        },
      ],
    ]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "orders started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, relay, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}

function toMessage(order: Order): OrderMessage {
  return { ...order, dueDate: order.dueDate ?? undefined };
}
