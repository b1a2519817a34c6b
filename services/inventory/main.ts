import { runMain } from "@waybill/platform/run-main.js";
import { loadInventoryConfig } from "./config.js";
import { startInventory } from "./service.js";

runMain("inventory", () => loadInventoryConfig(), startInventory);
