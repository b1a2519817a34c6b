import { runMain } from "../platform/run-main.js";
import { loadDispatcherConfig } from "./config.js";
import { startDispatcher } from "./service.js";

runMain("dispatcher", () => loadDispatcherConfig(), startDispatcher);
