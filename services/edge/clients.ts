// gRPC clients of the services behind the edge.
import { credentials } from "@grpc/grpc-js";
import { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { InventoryServiceClient } from "../gen/waybill/inventory/v1/inventory.js";
import { OrdersServiceClient } from "../gen/waybill/orders/v1/orders.js";
import { DispatcherServiceClient } from "../gen/waybill/dispatcher/v1/dispatcher.js";

export interface BackendClients {
  identity: IdentityServiceClient;
  orders: OrdersServiceClient;
  inventory: InventoryServiceClient;
  dispatcher: DispatcherServiceClient;
  close(): void;
}

export function createBackendClients(urls: { identity: string; orders: string; inventory: string; dispatcher: string }): BackendClients {
  const insecure = credentials.createInsecure();
  const options = { "grpc.keepalive_time_ms": 30_000 };
  const identity = new IdentityServiceClient(urls.identity, insecure, options);
  const orders = new OrdersServiceClient(urls.orders, insecure, options);
  const inventory = new InventoryServiceClient(urls.inventory, insecure, options);
  const dispatcher = new DispatcherServiceClient(urls.dispatcher, insecure, options);
  return {
    identity,
    orders,
    inventory,
    dispatcher,
    close: () => [identity, orders, inventory, dispatcher].forEach((c) => c.close()),
  };
}
