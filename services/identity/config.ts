import { z } from "zod";
import { baseConfigShape, loadConfig, port } from "@waybill/platform/config.js";
import { parseDuration } from "@waybill/platform/duration.js";
import { sealingKeySetting } from "@waybill/platform/sealed-box.js";
import { DEFAULT_BOOTSTRAP_CREDENTIALS_FILE } from "./bootstrap-credentials.js";
import { LAST_USED_FLUSH_INTERVAL_MS } from "./token-verifier.js";

/** Ports of this service when it runs in its own container (each service has its own pair; see docs/configuration.md). */
export const DEFAULT_GRPC_PORT = 50051;
export const DEFAULT_OPS_PORT = 9101;

export const DEFAULT_BOOTSTRAP_ADMIN_EMAIL = "admin@waybill.local";
export const DEFAULT_SESSION_TTL_SECONDS = 15 * 60;
export const DEFAULT_SESSION_REFRESH_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_SESSION_REFRESH_GRACE_SECONDS = 30;
export const DEFAULT_SESSION_KEY_ROTATE_EVERY_MS = 30 * 24 * 3600 * 1000;
export const DEFAULT_SESSION_KEY_CHECK_INTERVAL_MS = 60_000;

const duration = z.string().transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
    return z.NEVER;
  }
});

export const identityConfigSchema = z
  .object({
    ...baseConfigShape,
    GRPC_PORT: port.default(DEFAULT_GRPC_PORT),
    OPS_PORT: port.default(DEFAULT_OPS_PORT),
    BOOTSTRAP_API_TOKEN: z
      .string()
      .regex(/^api-[A-Za-z0-9_-]{16,256}$/, "must have the form api-<secret> (at least 16 characters of [A-Za-z0-9_-])")
      .optional(),
    BOOTSTRAP_ADMIN_EMAIL: z.string().email().default(DEFAULT_BOOTSTRAP_ADMIN_EMAIL),
    BOOTSTRAP_ADMIN_PASSWORD: z.string().min(8).optional(),
    /** Lifetime of a session JWT from POST /v1/auth/login. */
    /** How often token use (lastUsedAt) is written behind. */
    TOKEN_USE_FLUSH_INTERVAL_MS: z.coerce.number().int().min(10).default(LAST_USED_FLUSH_INTERVAL_MS),
    SESSION_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(30)
      .max(24 * 3600)
      .default(DEFAULT_SESSION_TTL_SECONDS),
    /** How long a remembered session (the console's refresh cookie) lives after its last use. */
    SESSION_REFRESH_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(400 * 24 * 3600)
      .default(DEFAULT_SESSION_REFRESH_TTL_SECONDS),
    /** How long a rotated-away refresh value still refreshes (two tabs at once); after it, reuse ends the session. */
    SESSION_REFRESH_GRACE_SECONDS: z.coerce.number().int().min(1).max(300).default(DEFAULT_SESSION_REFRESH_GRACE_SECONDS),
    /** Age at which the session signing key is replaced by a new one (a duration: 30d, 12h …). */
    SESSION_KEY_ROTATE_EVERY: duration.refine((ms) => ms >= 60_000, "must be at least 1m").default(DEFAULT_SESSION_KEY_ROTATE_EVERY_MS),
    /** How often identity re-reads the signing keys: takes up a rotation, drops keys whose tokens all expired. */
    SESSION_KEY_CHECK_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(3600 * 1000)
      .default(DEFAULT_SESSION_KEY_CHECK_INTERVAL_MS),
    /** Where a first start writes the credentials it generated (mode 0600); they never go to the logs. */
    BOOTSTRAP_CREDENTIALS_FILE: z.string().min(1).default(DEFAULT_BOOTSTRAP_CREDENTIALS_FILE),
    /** Seals the session signing keys at rest (base64 of 32 bytes); required in production. */
    IDENTITY_SECRET_KEY: sealingKeySetting.optional(),
    NODE_ENV: z.string().optional(),
  })
  .refine((config) => config.NODE_ENV !== "production" || config.IDENTITY_SECRET_KEY !== undefined, {
    path: ["IDENTITY_SECRET_KEY"],
    message: "is required when NODE_ENV=production: the session signing keys are sealed with it (openssl rand -base64 32)",
  });

export type IdentityConfig = Readonly<z.output<typeof identityConfigSchema>>;

export const loadIdentityConfig = (env: Record<string, string | undefined> = process.env): IdentityConfig => loadConfig(identityConfigSchema, env);
