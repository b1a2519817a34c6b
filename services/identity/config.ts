import { z } from "zod";
import { baseConfigShape, DEFAULT_PORTS, loadConfig, port } from "../platform/config.js";

export const DEFAULT_BOOTSTRAP_ADMIN_EMAIL = "admin@waybill.local";

export const identityConfigSchema = z.object({
  ...baseConfigShape,
  GRPC_PORT: port.default(DEFAULT_PORTS.identity.grpc),
  OPS_PORT: port.default(DEFAULT_PORTS.identity.ops),
  BOOTSTRAP_API_TOKEN: z
    .string()
    .regex(/^api-[A-Za-z0-9_-]{16,256}$/, "must have the form api-<secret> (at least 16 characters of [A-Za-z0-9_-])")
    .optional(),
  BOOTSTRAP_ADMIN_EMAIL: z.string().email().default(DEFAULT_BOOTSTRAP_ADMIN_EMAIL),
  BOOTSTRAP_ADMIN_PASSWORD: z.string().min(8).optional(),
});

export type IdentityConfig = Readonly<z.output<typeof identityConfigSchema>>;

export const loadIdentityConfig = (env: Record<string, string | undefined> = process.env): IdentityConfig =>
  loadConfig(identityConfigSchema, env);
