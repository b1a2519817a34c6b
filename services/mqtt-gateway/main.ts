import { runMain } from "@waybill/platform/run-main.js";
import { loadMqttGatewayConfig } from "./config.js";
import { startMqttGateway } from "./service.js";

runMain(
  "mqtt-gateway",
  () => loadMqttGatewayConfig(),
  (config) => startMqttGateway(config),
);
