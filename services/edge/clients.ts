// gRPC clients of the services behind the edge.
import { credentials } from "@grpc/grpc-js";
import { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { InventoryServiceClient } from "../gen/waybill/inventory/v1/inventory.js";
import { OrdersServiceClient } from "../gen/waybill/orders/v1/orders.js";
import { DispatcherServiceClient } from "../gen/waybill/dispatcher/v1/dispatcher.js";
import { DevicesServiceClient } from "../gen/waybill/devices/v1/devices.js";
import { GRPC_CHANNEL_OPTIONS } from "../platform/grpc.js";

export interface BackendClients {
  identity: IdentityServiceClient;
  orders: OrdersServiceClient;
  inventory: InventoryServiceClient;
  dispatcher: DispatcherServiceClient;
  devices: DevicesServiceClient;
  close(): void;
}

export function createBackendClients(urls: { identity: string; orders: string; inventory: string; dispatcher: string; devices: string }): BackendClients {
  const insecure = credentials.createInsecure();
  const options = { ...GRPC_CHANNEL_OPTIONS };
  const identity = new IdentityServiceClient(urls.identity, insecure, options);
  const orders = new OrdersServiceClient(urls.orders, insecure, options);
  const inventory = new InventoryServiceClient(urls.inventory, insecure, options);
  const dispatcher = new DispatcherServiceClient(urls.dispatcher, insecure, options);
  const devices = new DevicesServiceClient(urls.devices, insecure, options);
  return {
    identity,
    orders,
    inventory,
    dispatcher,
    devices,
    close: () => {
      for (const client of [identity, orders, inventory, dispatcher, devices]) client.close();
    },
  };
}
