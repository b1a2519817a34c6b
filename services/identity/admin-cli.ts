// Operator commands against the identity store:  npm run admin -- create-tenant acme --admin-email …
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command, InvalidArgumentError } from "commander";
import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "../platform/config.js";
import { createPool, ensureDatabase, migrate, PLATFORM_MIGRATIONS_DIR, withTransaction } from "../platform/db.js";
import { AppError } from "../platform/errors.js";
import { generatePassword } from "./passwords.js";
import { IDENTITY_SCHEMA } from "./service.js";
import { createToken } from "./token-manager.js";
import { createTenant, createUser } from "./users.js";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

function email(value: string): string {
  if (!z.string().email().safeParse(value).success) throw new InvalidArgumentError("not an email address");
  return value;
}

const program = new Command("admin").description("Waybill operator commands (uses DATABASE_URL)");

program
  .command("create-tenant")
  .description("create a tenant with its first admin user, and optionally an api token")
  .argument("<name>", "tenant name, unique")
  .requiredOption("--admin-email <email>", "the first admin's email", email)
  .option("--admin-password <password>", "the first admin's password (generated and printed when omitted)")
  .option("--api-token", "also create an api token and print it once")
  .action(async (name: string, options: { adminEmail: string; adminPassword?: string; apiToken?: boolean }) => {
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(name)) throw new InvalidArgumentError("tenant names are lowercase letters, digits and '-'");
    if (options.adminPassword !== undefined && options.adminPassword.length < 8) throw new InvalidArgumentError("the password needs at least 8 characters");
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
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  process.stderr.write(`admin: ${message}\n`);
  process.exit(error instanceof AppError || error instanceof InvalidArgumentError ? 2 : 1);
});
