import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "../platform/config.js";

export const DEFAULT_HTTP_PORT = 8080;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_AUTH_CACHE_TTL_MS = 30_000;
export const DEFAULT_AUTH_CACHE_MAX = 10_000;
export const DEFAULT_RATE_LIMIT_REQUESTS = 6_000;
export const DEFAULT_RATE_LIMIT_WINDOW_SECONDS = 60;
export const DEFAULT_LOGIN_RATE_LIMIT_PER_MINUTE = 20;

export const edgeConfigSchema = z.object({
  ...baseConfigShape,
  HTTP_PORT: port.default(DEFAULT_HTTP_PORT),
  /** /healthz, /readyz and /metrics for probes and scrapers; the public port keeps only /healthz and /readyz. */
  OPS_PORT: port.default(DEFAULT_PORTS.edge.ops),
  IDENTITY_GRPC_URL: z.string().default("127.0.0.1:50051"),
  ORDERS_GRPC_URL: z.string().default("127.0.0.1:50052"),
  INVENTORY_GRPC_URL: z.string().default("127.0.0.1:50053"),
  DISPATCHER_GRPC_URL: z.string().default("127.0.0.1:50054"),
  /** The MQTT gateway's DevicesService. */
  DEVICES_GRPC_URL: z.string().default("127.0.0.1:50055"),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(DEFAULT_BODY_LIMIT_BYTES),
  /** How long a resolved token is trusted without asking identity again. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(DEFAULT_AUTH_CACHE_TTL_MS),
  AUTH_CACHE_MAX: z.coerce.number().int().positive().default(DEFAULT_AUTH_CACHE_MAX),
  /** Requests each credential may make per window before 429. */
  RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(DEFAULT_RATE_LIMIT_REQUESTS),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(DEFAULT_RATE_LIMIT_WINDOW_SECONDS),
  /** Login attempts per client address per minute (slows password guessing). */
  LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(DEFAULT_LOGIN_RATE_LIMIT_PER_MINUTE),
});

export type EdgeConfig = Readonly<z.output<typeof edgeConfigSchema>>;

export const loadEdgeConfig = (env: Record<string, string | undefined> = process.env): EdgeConfig => loadConfig(edgeConfigSchema, env);
