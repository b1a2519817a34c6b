// The migrate command: applies every service's migrations (or the named services') and exits, so
// a deployment can migrate before its rollout (Kubernetes: deploy/base/migrate-job.yaml) and run
// the services with MIGRATE_AT_START=false.
//   npm run migrate [-- <service>…]            from a clone
//   node services/launcher/dist/migrate.js [<service>…]   in the image
//   … --status                                 lists what is pending, applies nothing (exit 3 when any)
// The database: DATABASE_URL, else the one `npm start` recorded in its data folder, else the
// default. Exit status: 0 done, 1 a migration failed, 2 bad arguments or configuration, 3 pending (--status).
import path from "node:path";
import { z } from "zod";
import { baseConfigShape, ConfigError, DEFAULT_DATABASE_URL, loadConfig } from "@waybill/platform/config.js";
import { createPool, ensureDatabase } from "@waybill/platform/db.js";
import { ensureInstallationId } from "@waybill/platform/installation.js";
import { DEFAULT_DATA_DIR, readLocalState } from "@waybill/platform/local-state.js";
import { createLogger } from "@waybill/platform/logger.js";
import { migrate, pendingMigrations, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { SERVICE_SCHEMAS } from "./service-schemas.js";
import { describeDatabase } from "./summary.js";

const migrateConfigSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  WAYBILL_DATA_DIR: z.string().default(DEFAULT_DATA_DIR),
  MIGRATION_LOCK_TIMEOUT_MS: baseConfigShape.MIGRATION_LOCK_TIMEOUT_MS,
  MIGRATION_STATEMENT_TIMEOUT_MS: baseConfigShape.MIGRATION_STATEMENT_TIMEOUT_MS,
  LOG_LEVEL: baseConfigShape.LOG_LEVEL.default("warn"),
});

const say = (line: string) => process.stdout.write(`${line}\n`);
const USAGE = `usage: migrate [--status] [${SERVICE_SCHEMAS.map((s) => s.service).join("|")}]…`;

async function main(argv: string[]): Promise<number> {
  const statusOnly = argv.includes("--status");
  const names = argv.filter((arg) => arg !== "--status");
  const unknown = names.filter((name) => name.startsWith("-") || !SERVICE_SCHEMAS.some((s) => s.service === name));
  if (unknown.length > 0) {
    process.stderr.write(`migrate: unknown ${unknown.join(", ")}\n${USAGE}\n`);
    return 2;
  }
  const chosen = names.length === 0 ? SERVICE_SCHEMAS : SERVICE_SCHEMAS.filter((s) => names.includes(s.service));
  const config = loadConfig(migrateConfigSchema, process.env);
  const databaseUrl = config.DATABASE_URL ?? (await readLocalState(path.resolve(config.WAYBILL_DATA_DIR))).databaseUrl ?? DEFAULT_DATABASE_URL;
  const logger = createLogger("migrate", config.LOG_LEVEL);
  say(`migrate: PostgreSQL ${describeDatabase(databaseUrl)}`);
  await ensureDatabase(databaseUrl);
  let pendingCount = 0;
  for (const service of chosen) {
    const pool = createPool({ databaseUrl, schema: service.schema, max: 1, applicationName: "waybill-migrate", logger });
    try {
      const dirs = [PLATFORM_MIGRATIONS_DIR, service.migrationsDir];
      if (statusOnly) {
        const pending = await pendingMigrations(pool, service.schema, dirs);
        pendingCount += pending.length;
        say(`  ${service.service} (schema ${service.schema}): ${pending.length === 0 ? "up to date" : `${pending.length} pending: ${pending.join(", ")}`}`);
        continue;
      }
      await ensureInstallationId(pool);
      const started = Date.now();
      const applied = await migrate(pool, service.schema, dirs, {
        formerSchemaNames: service.formerSchemaNames,
        lockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS,
        statementTimeoutMs: config.MIGRATION_STATEMENT_TIMEOUT_MS,
        logger,
      });
      say(
        `  ${service.service} (schema ${service.schema}): ${applied.length === 0 ? "up to date" : `applied ${applied.join(", ")} in ${Date.now() - started} ms`}`,
      );
    } finally {
      await pool.end();
    }
  }
  return statusOnly && pendingCount > 0 ? 3 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`migrate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
