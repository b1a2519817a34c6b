import { runMain } from "@waybill/platform/run-main.js";
import { loadOrdersConfig } from "./config.js";
import { startOrders } from "./service.js";

runMain("orders", () => loadOrdersConfig(), startOrders);
