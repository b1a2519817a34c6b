// The inventory service's public surface: what the launcher composes. Everything else is internal.
export { loadInventoryConfig, type InventoryConfig } from "./config.js";
export { startInventory, type InventoryHandle } from "./service.js";
