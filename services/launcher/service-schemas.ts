// Every service that owns a database schema, with its migrations: what the migrate command applies.
import { DISPATCHER_SERVICE_SCHEMA } from "@waybill/dispatcher";
import { IDENTITY_SERVICE_SCHEMA } from "@waybill/identity";
import { INVENTORY_SERVICE_SCHEMA } from "@waybill/inventory";
import { MQTT_GATEWAY_SERVICE_SCHEMA } from "@waybill/mqtt-gateway";
import { ORDERS_SERVICE_SCHEMA } from "@waybill/orders";
import type { ServiceSchema } from "@waybill/platform/runtime.js";

/** In the order `npm start` starts them. */
export const SERVICE_SCHEMAS: readonly ServiceSchema[] = [
  IDENTITY_SERVICE_SCHEMA,
  INVENTORY_SERVICE_SCHEMA,
  ORDERS_SERVICE_SCHEMA,
  DISPATCHER_SERVICE_SCHEMA,
  MQTT_GATEWAY_SERVICE_SCHEMA,
];
