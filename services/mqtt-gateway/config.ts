import { z } from "zod";
import { baseConfigShape, loadConfig, port } from "@waybill/platform/config.js";
import { DEFAULT_TLS_RELOAD_INTERVAL_MS } from "./tls-reload.js";
import { DEFAULT_AUTH_CACHE_MAX, DEFAULT_AUTH_CACHE_TTL_MS } from "@waybill/contracts/identity-client/token-resolver.js";

/** Ports of this service when it runs in its own container (each service has its own pair; see docs/configuration.md). */
export const DEFAULT_GRPC_PORT = 50055;
export const DEFAULT_OPS_PORT = 9105;

export const DEFAULT_MQTT_PORT = 1883;
export const DEFAULT_PRESENCE_HEARTBEAT_MS = 10_000;

export const mqttGatewayConfigSchema = z
  .object({
    ...baseConfigShape,
    MQTT_PORT: port.default(DEFAULT_MQTT_PORT),
    OPS_PORT: port.default(DEFAULT_OPS_PORT),
    /** MqttGatewayService: the device list and HTTP readings, called by the edge. */
    GRPC_PORT: port.default(DEFAULT_GRPC_PORT),
    IDENTITY_GRPC_URL: z.string().default("127.0.0.1:50051"),
    /** PEM files; when both are set the broker speaks MQTT over TLS. */
    MQTT_TLS_CERT_FILE: z.string().optional(),
    MQTT_TLS_KEY_FILE: z.string().optional(),
    /** How often the certificate files are read again; a renewed certificate is served to new connections without a restart. */
    MQTT_TLS_RELOAD_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_TLS_RELOAD_INTERVAL_MS),
    AUTH_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(DEFAULT_AUTH_CACHE_TTL_MS),
    AUTH_CACHE_MAX: z.coerce.number().int().positive().default(DEFAULT_AUTH_CACHE_MAX),
    /** How often this replica renews its presence lease; its devices read as disconnected after 3 missed beats. */
    MQTT_PRESENCE_HEARTBEAT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_PRESENCE_HEARTBEAT_MS),
  })
  .refine((c) => Boolean(c.MQTT_TLS_CERT_FILE) === Boolean(c.MQTT_TLS_KEY_FILE), {
    message: "set both MQTT_TLS_CERT_FILE and MQTT_TLS_KEY_FILE, or neither",
    path: ["MQTT_TLS_CERT_FILE"],
  });

export type MqttGatewayConfig = Readonly<z.output<typeof mqttGatewayConfigSchema>>;

export const loadMqttGatewayConfig = (env: Record<string, string | undefined> = process.env): MqttGatewayConfig => loadConfig(mqttGatewayConfigSchema, env);
