// The identity service: tenants, users, API tokens; answers Authenticate over gRPC.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startGrpcServer, unary } from "../platform/grpc.js";
import type { ServiceHandle } from "../platform/run-main.js";
import { startRuntime } from "../platform/runtime.js";
import { IdentityServiceService, type AuthenticateRequest, type AuthenticateResponse } from "../gen/waybill/identity/v1/identity.js";
import { createAuthenticator, LAST_USED_FLUSH_INTERVAL_MS } from "./authenticate.js";
import { bootstrapIdentity, type BootstrapResult } from "./bootstrap.js";
import type { IdentityConfig } from "./config.js";

export const IDENTITY_SCHEMA = "identity";
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

export interface IdentityHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
  /** What the first-start bootstrap did in this start, if it ran. */
  bootstrap?: BootstrapResult;
}

export interface IdentityDeps {
  /** Where the one-time bootstrap secrets are printed; standard output by default. */
  announce?: (text: string) => void;
}

export async function startIdentity(config: IdentityConfig, deps: IdentityDeps = {}): Promise<IdentityHandle> {
  const runtime = await startRuntime({ service: "identity", schema: IDENTITY_SCHEMA, migrationsDir: MIGRATIONS_DIR, config, opsPort: config.OPS_PORT });
  try {
    const bootstrap = await bootstrapIdentity(runtime.pool, {
      apiToken: config.BOOTSTRAP_API_TOKEN,
      adminEmail: config.BOOTSTRAP_ADMIN_EMAIL,
      adminPassword: config.BOOTSTRAP_ADMIN_PASSWORD,
    });
    if (bootstrap) announceBootstrap(bootstrap, deps.announce ?? ((text) => process.stdout.write(text)));

    const authenticator = createAuthenticator(runtime.pool);
    const flushTimer = setInterval(() => {
      authenticator.flushLastUsed().catch((error) => runtime.logger.warn({ err: error.message }, "could not record token use"));
    }, LAST_USED_FLUSH_INTERVAL_MS);
    flushTimer.unref();
    runtime.defer(async () => {
      clearInterval(flushTimer);
      await authenticator.flushLastUsed();
    });

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [
        IdentityServiceService,
        {
          authenticate: unary<AuthenticateRequest, AuthenticateResponse>(runtime.logger, async ({ token }) => {
            const principal = await authenticator.authenticate(token);
            return {
              tenantId: principal.tenantId,
              tokenId: principal.tokenId,
              tokenType: principal.tokenType,
              expiresAtMs: principal.expiresAt?.getTime() ?? 0,
            };
          }),
        },
      ],
    ]);
    runtime.defer(grpc.stop);
    runtime.logger.info({ grpcPort: grpc.port }, "identity started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, bootstrap, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}

function announceBootstrap(result: BootstrapResult, announce: (text: string) => void): void {
  const lines = [`Waybill first start: created tenant "default" (${result.tenantId}) and admin ${result.adminEmail}.`];
  if (result.generatedAdminPassword) lines.push(`  admin password: ${result.generatedAdminPassword}`);
  if (result.generatedApiToken) lines.push(`  API token:      ${result.generatedApiToken}`);
  if (result.generatedAdminPassword || result.generatedApiToken) lines.push("  These are shown only once; keep them now.");
  announce(`${lines.join("\n")}\n`);
}
