import { z } from "zod";
import { baseConfigShape, booleanFlag, loadConfig, port } from "@waybill/platform/config.js";
import { parseDuration } from "@waybill/platform/duration.js";
import { DEFAULT_WEBHOOK_DISABLE_AFTER_MS } from "./auto-disable.js";
import { DEFAULT_RETENTION_EVENTS_MS, DEFAULT_RETENTION_EXECUTIONS_MS, DEFAULT_RETENTION_TEST_EVENTS_MS } from "./retention.js";
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from "./retry-schedule.js";
import { DEFAULT_WEBHOOK_PARK_AFTER_MS } from "./parked-deliveries.js";
import { sealingKeySetting } from "@waybill/platform/sealed-box.js";
import { MAX_WEBHOOK_TIMEOUT_MS } from "@waybill/contracts/limits/hooks.js";

/** Ports of this service when it runs in its own container (each service has its own pair; see docs/configuration.md). */
export const DEFAULT_GRPC_PORT = 50054;
export const DEFAULT_OPS_PORT = 9104;

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;
/** The edge waits this long (plus a margin) for a synchronous test delivery. */
export const DEFAULT_WEBHOOK_CONCURRENCY_PER_HOOK = 8;
/** How long JetStream waits for a dispatcher that took a message to settle it before handing it to another. */

const duration = z.string().transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

const retrySchedule = z.string().transform((value, ctx) => {
  try {
    return parseRetrySchedule(value);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

export const DEFAULT_WEBHOOK_SECRET_RESEAL_BATCH_SIZE = 100;
export const DEFAULT_WEBHOOK_SECRET_RESEAL_PAUSE_MS = 50;
export const DEFAULT_WEBHOOK_SECRET_RESEAL_INTERVAL_MS = 60_000;

export const dispatcherConfigSchema = z
  .object({
    ...baseConfigShape,
    GRPC_PORT: port.default(DEFAULT_GRPC_PORT),
    OPS_PORT: port.default(DEFAULT_OPS_PORT),
    NODE_ENV: z.string().optional(),
    /** AES-256-GCM key sealing hook secrets at rest (base64 of 32 bytes); required in production. */
    WEBHOOK_SECRET_KEY: sealingKeySetting.optional(),
    /**
     * The key WEBHOOK_SECRET_KEY replaces, still accepted for reading while every hook's secret is
     * re-sealed under the new one in the background (operations.md, "Key rotation").
     */
    WEBHOOK_SECRET_KEY_PREVIOUS: sealingKeySetting.optional(),
    /** Hooks re-sealed per batch, and the pause between batches. */
    WEBHOOK_SECRET_RESEAL_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(DEFAULT_WEBHOOK_SECRET_RESEAL_BATCH_SIZE),
    WEBHOOK_SECRET_RESEAL_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(DEFAULT_WEBHOOK_SECRET_RESEAL_PAUSE_MS),
    /** How often the dispatcher looks for hook secrets left to re-seal. */
    WEBHOOK_SECRET_RESEAL_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(DEFAULT_WEBHOOK_SECRET_RESEAL_INTERVAL_MS),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: booleanFlag.default(false),
    /**
     * Where the dispatcher listens for hook changes (hook-changes.ts) when DATABASE_URL goes through
     * a pooler in transaction mode, which does not pass notifications on: PostgreSQL itself.
     */
    DATABASE_LISTEN_URL: z.string().url().optional(),
    /** Delays after each failed attempt, in milliseconds once parsed. */
    WEBHOOK_RETRY_SCHEDULE: retrySchedule.default(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(1).max(MAX_WEBHOOK_TIMEOUT_MS).default(DEFAULT_WEBHOOK_TIMEOUT_MS),
    /** Deliveries to one hook in flight at once (per dispatcher replica). */
    WEBHOOK_CONCURRENCY_PER_HOOK: z.coerce.number().int().min(1).max(256).default(DEFAULT_WEBHOOK_CONCURRENCY_PER_HOOK),
    /**
     * Ack wait of the dispatcher's EVENTS and DELIVERIES consumers: after a crash, what it had taken
     * is redelivered this much later. Held messages get heartbeats, so it bounds no delivery's length.
     */
    /**
     * A delivery that would wait this long or longer for its hook's circuit breaker is parked in
     * PostgreSQL until the receiver answers again (parked-deliveries.ts; milliseconds once parsed).
     */
    WEBHOOK_PARK_AFTER: duration.default(DEFAULT_WEBHOOK_PARK_AFTER_MS),
    /** A hook whose every attempt failed this long is paused by the system (milliseconds once parsed). */
    WEBHOOK_DISABLE_AFTER: duration.default(DEFAULT_WEBHOOK_DISABLE_AFTER_MS),
    /** How long the event log, execution records and test events are kept (milliseconds once parsed). */
    RETENTION_EVENTS: duration.default(DEFAULT_RETENTION_EVENTS_MS),
    RETENTION_EXECUTIONS: duration.default(DEFAULT_RETENTION_EXECUTIONS_MS),
    RETENTION_TEST_EVENTS: duration.default(DEFAULT_RETENTION_TEST_EVENTS_MS),
  })
  .refine((config) => config.NODE_ENV !== "production" || config.WEBHOOK_SECRET_KEY !== undefined, {
    path: ["WEBHOOK_SECRET_KEY"],
    message: "is required when NODE_ENV=production (hook secrets could not be read after a restart otherwise)",
  });

export type DispatcherConfig = Readonly<z.output<typeof dispatcherConfigSchema>>;

export const loadDispatcherConfig = (env: Record<string, string | undefined> = process.env): DispatcherConfig => loadConfig(dispatcherConfigSchema, env);
