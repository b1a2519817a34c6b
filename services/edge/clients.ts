// gRPC clients of the services behind the edge.
import { credentials } from "@grpc/grpc-js";
import { IdentityServiceClient } from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import { InventoryServiceClient } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { OrdersServiceClient } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { DispatcherServiceClient } from "@waybill/contracts/gen/waybill/dispatcher/v1/dispatcher.js";
import { MqttGatewayServiceClient } from "@waybill/contracts/gen/waybill/mqtt_gateway/v1/mqtt_gateway.js";
import { GRPC_CHANNEL_OPTIONS } from "@waybill/platform/grpc.js";
import { grpcClientTracing } from "@waybill/platform/grpc-tracing.js";

export interface BackendClients {
  identity: IdentityServiceClient;
  orders: OrdersServiceClient;
  inventory: InventoryServiceClient;
  dispatcher: DispatcherServiceClient;
  mqttGateway: MqttGatewayServiceClient;
  close(): void;
}

export function createBackendClients(urls: { identity: string; orders: string; inventory: string; dispatcher: string; mqttGateway: string }): BackendClients {
  const insecure = credentials.createInsecure();
  const options = { ...GRPC_CHANNEL_OPTIONS, ...grpcClientTracing("edge") };
  const identity = new IdentityServiceClient(urls.identity, insecure, options);
  const orders = new OrdersServiceClient(urls.orders, insecure, options);
  const inventory = new InventoryServiceClient(urls.inventory, insecure, options);
  const dispatcher = new DispatcherServiceClient(urls.dispatcher, insecure, options);
  const mqttGateway = new MqttGatewayServiceClient(urls.mqttGateway, insecure, options);
  return {
    identity,
    orders,
    inventory,
    dispatcher,
    mqttGateway,
    close: () => {
      for (const client of [identity, orders, inventory, dispatcher, mqttGateway]) client.close();
    },
  };
}
