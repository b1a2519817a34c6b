import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { baseConfigShape, loadConfig, port } from "@waybill/platform/config.js";
import { parseTrustedProxies } from "./client-address.js";
import { RATE_LIMIT_BUCKET_TTL_MS } from "./rate-limit-store.js";
import { DEFAULT_AUTH_CACHE_MAX, DEFAULT_AUTH_CACHE_TTL_MS } from "@waybill/contracts/identity-client/token-resolver.js";

/** The ops port of this service when it runs in its own container (each service has its own; see docs/configuration.md). */
export const DEFAULT_OPS_PORT = 9100;

export const DEFAULT_HTTP_PORT = 8080;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_RATE_LIMIT_REQUESTS = 6_000;
export const DEFAULT_RATE_LIMIT_WINDOW_SECONDS = 60;
export const DEFAULT_LOGIN_RATE_LIMIT_PER_MINUTE = 20;
export const DEFAULT_SESSION_RATE_LIMIT_PER_MINUTE = 120;

/** A comment line on every event stream this often, so proxies and readers know it is alive. */
export const DEFAULT_EVENT_STREAM_HEARTBEAT_MS = 15_000;
/** Event streams one credential may hold open at once. */
export const DEFAULT_EVENT_STREAMS_PER_CREDENTIAL = 5;
/** How long an event stream reader may leave the write buffer full before it is disconnected. */
export const DEFAULT_EVENT_STREAM_DRAIN_TIMEOUT_MS = 30_000;

/** The console's build output in this repository (clients/console/dist), from the sources' folder. */
export const DEFAULT_CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../clients/console/dist");

export const edgeConfigSchema = z.object({
  ...baseConfigShape,
  /** The built console served at `/` (a 503 page explains how to build it when absent). */
  CONSOLE_DIR: z.string().min(1).default(DEFAULT_CONSOLE_DIR),
  HTTP_PORT: port.default(DEFAULT_HTTP_PORT),
  /** Test runs only: record every /v1 answer to this JSONL file for the contract check (test/support/contract-check.ts). */
  ANSWER_LOG_FILE: z.string().min(1).optional(),
  /** /healthz, /readyz and /metrics for probes and scrapers; the public port keeps only /healthz and /readyz. */
  OPS_PORT: port.default(DEFAULT_OPS_PORT),
  IDENTITY_GRPC_URL: z.string().default("127.0.0.1:50051"),
  ORDERS_GRPC_URL: z.string().default("127.0.0.1:50052"),
  INVENTORY_GRPC_URL: z.string().default("127.0.0.1:50053"),
  DISPATCHER_GRPC_URL: z.string().default("127.0.0.1:50054"),
  /** The MQTT gateway's MqttGatewayService. */
  MQTT_GATEWAY_GRPC_URL: z.string().default("127.0.0.1:50055"),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(DEFAULT_BODY_LIMIT_BYTES),
  /** How long a resolved token is trusted without asking identity again. */
  AUTH_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(DEFAULT_AUTH_CACHE_TTL_MS),
  AUTH_CACHE_MAX: z.coerce.number().int().positive().default(DEFAULT_AUTH_CACHE_MAX),
  /** Requests each credential may make per window before 429. */
  RATE_LIMIT_REQUESTS: z.coerce.number().int().positive().default(DEFAULT_RATE_LIMIT_REQUESTS),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(RATE_LIMIT_BUCKET_TTL_MS / 1000)
    .default(DEFAULT_RATE_LIMIT_WINDOW_SECONDS),
  /**
   * Where rate-limit counts live: `memory` counts per process (one edge), `nats` in a JetStream
   * KV bucket every edge replica shares, so the limits hold whatever the replica count.
   */
  RATE_LIMIT_STORE: z.enum(["memory", "nats"]).default("memory"),
  /**
   * Addresses and CIDR ranges of the proxies in front of the edge (ingress controller, load
   * balancer), comma-separated: their X-Forwarded-For gives the client address the login
   * limiter counts. Empty: the socket's peer is the client.
   */
  TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((value, ctx) => {
      try {
        return parseTrustedProxies(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** Login attempts per client address per minute (slows password guessing). */
  LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(DEFAULT_LOGIN_RATE_LIMIT_PER_MINUTE),
  /** Session refreshes and logouts (the console's cookie) per client address per minute. */
  SESSION_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(DEFAULT_SESSION_RATE_LIMIT_PER_MINUTE),
  EVENT_STREAM_HEARTBEAT_MS: z.coerce.number().int().positive().default(DEFAULT_EVENT_STREAM_HEARTBEAT_MS),
  EVENT_STREAMS_PER_CREDENTIAL: z.coerce.number().int().positive().default(DEFAULT_EVENT_STREAMS_PER_CREDENTIAL),
  EVENT_STREAM_DRAIN_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_EVENT_STREAM_DRAIN_TIMEOUT_MS),
});

export type EdgeConfig = Readonly<z.output<typeof edgeConfigSchema>>;

export const loadEdgeConfig = (env: Record<string, string | undefined> = process.env): EdgeConfig => loadConfig(edgeConfigSchema, env);
