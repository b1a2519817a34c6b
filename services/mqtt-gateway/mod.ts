// The MQTT gateway's public surface: what the launcher composes. Everything else is internal.
export { DEFAULT_MQTT_PORT, loadMqttGatewayConfig, type MqttGatewayConfig } from "./config.js";
export { startMqttGateway, type MqttGatewayHandle } from "./service.js";
