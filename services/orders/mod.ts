// The orders service's public surface: what the launcher composes. Everything else is internal.
export { loadOrdersConfig, type OrdersConfig } from "./config.js";
export { ORDERS_SERVICE_SCHEMA, startOrders, type OrdersHandle } from "./service.js";
