// The MQTT gateway's public surface: what the launcher composes. Everything else is internal.
export { DEFAULT_MQTT_PORT, loadMqttGatewayConfig, type MqttGatewayConfig } from "./config.js";
export { MQTT_GATEWAY_SERVICE_SCHEMA, startMqttGateway, type MqttGatewayHandle } from "./service.js";
