// Configuration is read from the environment once, validated with zod and frozen.
import { z } from "zod";
import { tracingConfigShape } from "./tracing.js";

export const DEFAULT_DATABASE_URL = "postgres://127.0.0.1:5432/waybill";
export const DEFAULT_NATS_URL = "nats://127.0.0.1:4222";
export const DEFAULT_LOG_LEVEL = "info";
/** PostgreSQL connections per service (per pool). */
export const DEFAULT_DB_POOL_MAX = 10;
/** One NATS server locally; deploy/ sets 3 for its three-node cluster. */
export const DEFAULT_NATS_STREAM_REPLICAS = 1;
export const DEFAULT_READINESS_CHECK_INTERVAL_MS = 5_000;
export const DEFAULT_READINESS_CHECK_TIMEOUT_MS = 2_000;
/** A consumer without progress this long while messages wait for it is reported stalled (/readyz, metric). */
export const DEFAULT_CONSUMER_STALL_WINDOW_MS = 120_000;
/** How long JetStream waits for a consumer's ack before redelivering (the INGRESS and EVENTS consumers). */
export const DEFAULT_CONSUMER_ACK_WAIT_MS = 30_000;
/** How long one migration statement may wait for a lock before it gives up (and is tried again). */
export const DEFAULT_MIGRATION_LOCK_TIMEOUT_MS = 10_000;
/** How long one migration statement may run. */
export const DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS = 15 * 60_000;
export const port = z.coerce.number().int().min(0).max(65535);
export const booleanFlag = z.enum(["true", "false", "1", "0", "yes", "no"]).transform((v) => v === "true" || v === "1" || v === "yes");

/** Settings every service shares. */
export const baseConfigShape = {
  DATABASE_URL: z.string().url().default(DEFAULT_DATABASE_URL),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(1_000).default(DEFAULT_DB_POOL_MAX),
  NATS_URL: z.string().default(DEFAULT_NATS_URL),
  /** A NATS user and password, when the server requires them (TLS is used when the server asks for it). */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  /**
   * Copies of each JetStream stream a service creates (3 on a three-node cluster). An existing
   * stream with fewer is raised; one with more is left alone.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(DEFAULT_NATS_STREAM_REPLICAS),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default(DEFAULT_LOG_LEVEL),
  /** Append the log to this file instead of standard output (created with its folder when missing). */
  LOG_FILE: z.string().min(1).optional(),
  /** How often /readyz's dependency checks run in the background, and how long each may take. */
  READINESS_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(300_000).default(DEFAULT_READINESS_CHECK_INTERVAL_MS),
  READINESS_CHECK_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(DEFAULT_READINESS_CHECK_TIMEOUT_MS),
  /** Host the service's servers bind to. */
  BIND_HOST: z.string().default("0.0.0.0"),
  /**
   * Prefix of NATS stream names; tests set it so that runs never share streams. Stream names
   * must be unique per NATS account; subjects are prefixed too.
   */
  STREAM_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_]*$/)
    .default(""),
  /**
   * Apply the service's migrations at start (`npm start`, compose). Where the migrate command
   * runs them before a rollout (Kubernetes' migrate Job), false: the service then waits, not
   * ready, until its schema is migrated.
   */
  MIGRATE_AT_START: booleanFlag.default(true),
  /** lock_timeout and statement_timeout of each migration statement (0: none). */
  MIGRATION_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(DEFAULT_MIGRATION_LOCK_TIMEOUT_MS),
  MIGRATION_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(DEFAULT_MIGRATION_STATEMENT_TIMEOUT_MS),
  /**
   * The id of another installation whose claim on this STREAM_PREFIX's streams this one takes
   * over (stream-claims.ts): set once when this installation replaces that one.
   */
  STREAMS_TAKE_OVER_FROM: z
    .string()
    .regex(/^inst_[0-9a-z]+$/, "an installation id, inst_…")
    .optional(),
  CONSUMER_STALL_WINDOW_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(DEFAULT_CONSUMER_STALL_WINDOW_MS),
  /** Ack wait of the services' durable consumers; what a crashed process held comes back this much later. */
  CONSUMER_ACK_WAIT_MS: z.coerce.number().int().min(1_000).max(300_000).default(DEFAULT_CONSUMER_ACK_WAIT_MS),
  /** OpenTelemetry: off unless an OTLP endpoint is set (tracing.ts). */
  ...tracingConfigShape,
};

export class ConfigError extends Error {}

/** Validates `env` against `schema` and returns a frozen config, or throws a readable error. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): Readonly<z.output<S>> {
  // Empty strings mean "not set", as in most shells' `FOO= cmd`.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  return Object.freeze(result.data) as Readonly<z.output<S>>;
}
