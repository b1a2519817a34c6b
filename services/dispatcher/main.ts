import { runMain } from "@waybill/platform/run-main.js";
import { loadDispatcherConfig } from "./config.js";
import { startDispatcher } from "./service.js";

runMain("dispatcher", () => loadDispatcherConfig(), startDispatcher);
