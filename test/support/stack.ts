// Starts the services in-process on ephemeral ports against a test environment, the way the
// launcher does, and stops them in reverse order.
import { randomBytes } from "node:crypto";
import { loadDispatcherConfig } from "../../services/dispatcher/config.js";
import { startDispatcher, type DispatcherHandle } from "../../services/dispatcher/service.js";
import { loadEdgeConfig } from "../../services/edge/config.js";
import { startEdge, type EdgeHandle } from "../../services/edge/service.js";
import { loadIdentityConfig } from "../../services/identity/config.js";
import { startIdentity, type IdentityHandle } from "../../services/identity/service.js";
import { loadInventoryConfig } from "../../services/inventory/config.js";
import { startInventory, type InventoryHandle } from "../../services/inventory/service.js";
import { loadMqttGatewayConfig } from "../../services/mqtt-gateway/config.js";
import { startMqttGateway, type MqttGatewayHandle } from "../../services/mqtt-gateway/service.js";
import { loadOrdersConfig } from "../../services/orders/config.js";
import { startOrders, type OrdersHandle, type OrdersOptions } from "../../services/orders/service.js";
import { createTestEnvironment, type TestEnvironment } from "./environment.js";

export interface Stack {
  env: TestEnvironment;
  baseUrl: string;
  token: string;
  identity: IdentityHandle;
  inventory: InventoryHandle;
  orders: OrdersHandle;
  dispatcher: DispatcherHandle;
  /** The MQTT gateway (device registry and MqttGatewayService); MQTT on gateway.port. */
  gateway: MqttGatewayHandle;
  edge: EdgeHandle;
  /** Environment the stack's services were started with (for starting more of them). */
  serviceEnv: Record<string, string>;
  stop(): Promise<void>;
}

export interface StackOptions {
  orders?: OrdersOptions;
  extraEnv?: Record<string, string>;
  /** Servers of the test's own (see private-servers.ts) instead of the shared ones. */
  servers?: { databaseUrl?: string; natsUrl?: string };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const env = await createTestEnvironment(options.servers);
  const token = `api-${randomBytes(32).toString("base64url")}`;
  // Sealing keys: one per stack, so a service restarted with serviceEnv opens what it sealed.
  const webhookKey = randomBytes(32).toString("base64");
  const serviceEnv = {
    ...env.env,
    GRPC_PORT: "0",
    OPS_PORT: "0",
    HTTP_PORT: "0",
    BOOTSTRAP_API_TOKEN: token,
    WEBHOOK_SECRET_KEY: webhookKey,
    IDENTITY_SECRET_KEY: randomBytes(32).toString("base64"),
    ...options.extraEnv,
  };
  const started: { stop(): Promise<void> }[] = [];
  try {
    const identity = await startIdentity(loadIdentityConfig(serviceEnv), { announce: () => {} });
    started.push(identity);
    const inventory = await startInventory(loadInventoryConfig(serviceEnv));
    started.push(inventory);
    const orders = await startOrders(loadOrdersConfig({ ...serviceEnv, INVENTORY_GRPC_URL: `127.0.0.1:${inventory.grpcPort}` }), options.orders);
    started.push(orders);
    const dispatcher = await startDispatcher(loadDispatcherConfig(serviceEnv));
    started.push(dispatcher);
    const backends = {
      IDENTITY_GRPC_URL: `127.0.0.1:${identity.grpcPort}`,
      ORDERS_GRPC_URL: `127.0.0.1:${orders.grpcPort}`,
      INVENTORY_GRPC_URL: `127.0.0.1:${inventory.grpcPort}`,
      DISPATCHER_GRPC_URL: `127.0.0.1:${dispatcher.grpcPort}`,
    };
    Object.assign(serviceEnv, backends);
    const gateway = await startMqttGateway(loadMqttGatewayConfig({ ...serviceEnv, MQTT_PORT: "0" }));
    started.push(gateway);
    Object.assign(serviceEnv, { MQTT_GATEWAY_GRPC_URL: `127.0.0.1:${gateway.grpcPort}` });
    const edge = await startEdge(loadEdgeConfig(serviceEnv));
    started.push(edge);
    return {
      env,
      baseUrl: `${edge.url}/v1`,
      token,
      identity,
      inventory,
      orders,
      dispatcher,
      gateway,
      edge,
      serviceEnv,
      async stop() {
        for (const part of started.reverse()) await part.stop();
        await env.cleanup();
      },
    };
  } catch (error) {
    for (const part of started.reverse()) await part.stop().catch(() => {});
    await env.cleanup();
    throw error;
  }
}
