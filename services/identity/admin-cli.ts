// Operator commands against the identity store:  npm run admin -- create-tenant acme --admin-email …
// Exit status: 0 done, 2 refused input (usage, validation, duplicates), 1 anything else.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "../platform/config.js";
import { createPool, ensureDatabase, migrate, PLATFORM_MIGRATIONS_DIR, withTransaction } from "../platform/db.js";
import { AppError, ValidationError } from "../platform/errors.js";
import { generatePassword } from "./passwords.js";
import { IDENTITY_SCHEMA } from "./service.js";
import { createToken } from "./token-manager.js";
import { createTenant, createUser } from "./users.js";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

function email(value: string): string {
  if (!z.string().email().safeParse(value).success) throw new InvalidArgumentError("not an email address");
  return value;
}

const USAGE_EXIT_CODE = 2;

// exitOverride: commander throws instead of exiting (set before .command(), so subcommands inherit
// it), and usage errors leave with the same status as every other refused input.
const program = new Command("admin").description("Waybill operator commands (uses DATABASE_URL)").exitOverride();

program
  .command("create-tenant")
  .description("create a tenant with its first admin user, and optionally an api token")
  .argument("<name>", "tenant name, unique")
  .requiredOption("--admin-email <email>", "the first admin's email", email)
  .option("--admin-password <password>", "the first admin's password (generated and printed when omitted)")
  .option("--api-token", "also create an api token and print it once")
  .action(async (name: string, options: { adminEmail: string; adminPassword?: string; apiToken?: boolean }) => {
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(name)) {
      throw new ValidationError("tenant names are 1 to 63 lowercase letters, digits and '-', starting with a letter or digit", undefined, "invalid_tenant_name");
    }
    if (options.adminPassword !== undefined && options.adminPassword.length < 8) {
      throw new ValidationError("the admin password needs at least 8 characters", undefined, "invalid_password");
    }
    const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
    await ensureDatabase(databaseUrl);
    const pool = createPool({ databaseUrl, schema: IDENTITY_SCHEMA, applicationName: "waybill-admin", max: 2 });
    try {
      await migrate(pool, IDENTITY_SCHEMA, [PLATFORM_MIGRATIONS_DIR, MIGRATIONS_DIR]);
      const password = options.adminPassword ?? generatePassword();
      const created = await withTransaction(pool, async (client) => {
        const tenant = await createTenant(client, name);
        const admin = await createUser(client, tenant.id, { email: options.adminEmail, password, role: "admin" });
        const token = options.apiToken ? await createToken(client, tenant.id, { name: "admin-cli", type: "api", expiresAt: null }) : undefined;
        return { tenant, admin, token };
      });
      process.stdout.write(`created tenant "${created.tenant.name}" (${created.tenant.id})\n`);
      process.stdout.write(`  admin:    ${created.admin.email} (${created.admin.id})\n`);
      if (!options.adminPassword) process.stdout.write(`  password: ${password}   (shown once)\n`);
      if (created.token) process.stdout.write(`  api token: ${created.token.value}   (shown once)\n`);
    } finally {
      await pool.end();
    }
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  // Commander has printed its own message (or the help) already.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE);
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  process.stderr.write(`admin: ${message}\n`);
  process.exit(error instanceof AppError ? USAGE_EXIT_CODE : 1);
});
