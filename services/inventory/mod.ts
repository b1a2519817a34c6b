// The inventory service's public surface: what the launcher composes. Everything else is internal.
export { loadInventoryConfig, type InventoryConfig } from "./config.js";
export { INVENTORY_SERVICE_SCHEMA, startInventory, type InventoryHandle } from "./service.js";
