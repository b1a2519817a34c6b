import { runMain } from "@waybill/platform/run-main.js";
import { loadEdgeConfig } from "./config.js";
import { startEdge } from "./service.js";

runMain(
  "edge",
  () => loadEdgeConfig(),
  (config) => startEdge(config),
);
