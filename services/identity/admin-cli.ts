// Operator commands against the identity store:  npm run admin -- create-tenant acme --admin-email …
//   tokens create --tenant default --name ci --type api   (prints the token alone on stdout, once)
//   reset-password --email admin@waybill.local [--password …]
//   rotate-session-key   (a new session signing key now; needs IDENTITY_SECRET_KEY or the data folder's key file)
// The database: DATABASE_URL, else the one `npm start` recorded in its data folder, else the default.
// Exit status: 0 done, 2 refused input (usage, validation, duplicates, unknown tenant or user), 1 anything else.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { z } from "zod";
import { DEFAULT_DATABASE_URL } from "@waybill/platform/config.js";
import { createPool, ensureDatabase } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { AppError } from "@waybill/platform/errors.js";
import { DEFAULT_DATA_DIR, readLocalState } from "@waybill/platform/local-state.js";
import { generatePassword, hashPassword } from "./passwords.js";
import { IDENTITY_SCHEMA } from "./service.js";
import { createToken } from "./token-manager.js";
import { TOKEN_TYPES, type TokenType } from "@waybill/contracts/identity/tokens.js";
import { createTenant, createUser } from "./users.js";
import { readFile } from "node:fs/promises";
import { createSealedBox, parseSealingKey } from "@waybill/platform/sealed-box.js";
import { loadIdentityConfig } from "./config.js";
import { IDENTITY_SECRET_KEY_FILE } from "./mod.js";
import { loadSessionKeys, sessionKeyPolicy } from "./session-keys.js";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

function email(value: string): string {
  if (!z.string().email().safeParse(value).success) throw new InvalidArgumentError("not an email address");
  return value;
}

const USAGE_EXIT_CODE = 2;
const MIN_PASSWORD_LENGTH = 8;

function tokenType(value: string): TokenType {
  if (!(TOKEN_TYPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`one of ${TOKEN_TYPES.join(", ")}`);
  return value as TokenType;
}

async function databaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const state = await readLocalState(path.resolve(process.env.WAYBILL_DATA_DIR || DEFAULT_DATA_DIR));
  return state.databaseUrl ?? DEFAULT_DATABASE_URL;
}

/** Runs `fn` with a pool on the migrated identity schema. */
async function withIdentityStore<T>(fn: (pool: ReturnType<typeof createPool>) => Promise<T>): Promise<T> {
  const url = await databaseUrl();
  await ensureDatabase(url);
  const pool = createPool({ databaseUrl: url, schema: IDENTITY_SCHEMA, applicationName: "waybill-admin", max: 2 });
  try {
    await migrate(pool, IDENTITY_SCHEMA, [PLATFORM_MIGRATIONS_DIR, MIGRATIONS_DIR]);
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

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
      throw appError("invalid_tenant_name", "tenant names are 1 to 63 lowercase letters, digits and '-', starting with a letter or digit");
    }
    if (options.adminPassword !== undefined && options.adminPassword.length < 8) {
      throw appError("invalid_password", "the admin password needs at least 8 characters");
    }
    await withIdentityStore(async (pool) => {
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
    });
  });

const tokens = program.command("tokens").description("API tokens of a tenant");
tokens
  .command("create")
  .description("create an API token and print its value (alone on standard output, once; it is stored only as a hash)")
  .requiredOption("--tenant <name-or-id>", "the tenant, by name (e.g. default) or id (ten_…)")
  .requiredOption("--name <name>", "what the token is for, shown in GET /v1/tokens")
  .requiredOption("--type <type>", `one of ${TOKEN_TYPES.join(", ")}`, tokenType)
  .option("--expires-at <date-time>", "ISO 8601 date-time with offset; never when omitted")
  .action(async (options: { tenant: string; name: string; type: TokenType; expiresAt?: string }) => {
    if (options.name.length < 1 || options.name.length > 100) throw appError("invalid_name", "--name takes 1 to 100 characters");
    if (options.expiresAt !== undefined && !z.iso.datetime({ offset: true }).safeParse(options.expiresAt).success) {
      throw appError("invalid_expires_at", '--expires-at must be an ISO 8601 date-time with offset, such as "2027-01-01T00:00:00Z"');
    }
    await withIdentityStore(async (pool) => {
      const tenantId = await tenantIdOf(pool, options.tenant);
      const created = await createToken(pool, tenantId, { name: options.name, type: options.type, expiresAt: options.expiresAt ?? null });
      // The value alone on stdout, so `TOKEN=$(npm run -s admin -- tokens create …)` captures it.
      process.stdout.write(`${created.value}\n`);
      process.stderr.write(
        `created ${created.token.type} token "${created.token.name}" (${created.token.id}) for tenant ${options.tenant}; its value is shown only this once\n`,
      );
    });
  });

program
  .command("reset-password")
  .description("set a new password for a user (login is by email, which names one user across tenants)")
  .requiredOption("--email <email>", "the user's email", email)
  .option("--tenant <name-or-id>", "refuse unless the user belongs to this tenant")
  .option("--password <password>", "the new password (generated and printed when omitted)")
  .action(async (options: { email: string; tenant?: string; password?: string }) => {
    if (options.password !== undefined && options.password.length < MIN_PASSWORD_LENGTH) {
      throw appError("invalid_password", `the password needs at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    const password = options.password ?? generatePassword();
    await withIdentityStore(async (pool) => {
      const tenantId = options.tenant === undefined ? null : await tenantIdOf(pool, options.tenant);
      const { rows } = await pool.query<{ id: string }>(
        "UPDATE users SET password_hash = $2 WHERE lower(email) = lower($1) AND ($3::text IS NULL OR tenant_id = $3) RETURNING id",
        [options.email, await hashPassword(password), tenantId],
      );
      if (rows.length === 0) throw appError("user_not_found", `no user with email ${options.email}${options.tenant ? ` in tenant ${options.tenant}` : ""}`);
      process.stdout.write(`password of ${options.email} (${rows[0].id}) reset\n`);
      if (!options.password) process.stdout.write(`  password: ${password}   (shown once)\n`);
    });
  });

program
  .command("rotate-session-key")
  .description(
    "make a new session signing key now; running identity replicas sign with it within SESSION_KEY_CHECK_INTERVAL_MS, " +
      "and the replaced key keeps verifying until every token it signed has expired",
  )
  .action(async () => {
    const config = loadIdentityConfig({ ...process.env, IDENTITY_SECRET_KEY: await identitySecretKey() });
    const policy = sessionKeyPolicy({
      rotateEveryMs: config.SESSION_KEY_ROTATE_EVERY,
      accessTtlSeconds: config.SESSION_TTL_SECONDS,
      checkIntervalMs: config.SESSION_KEY_CHECK_INTERVAL_MS,
    });
    const box = createSealedBox(parseSealingKey(config.IDENTITY_SECRET_KEY as string, "IDENTITY_SECRET_KEY"));
    await withIdentityStore(async (pool) => {
      const keys = await loadSessionKeys(pool, box, policy, { rotateNow: true });
      process.stdout.write(`session signing key rotated: ${keys.current.kid} signs from now on\n`);
      for (const kid of keys.retired)
        process.stdout.write(`  retired ${kid}: still verifies for ${Math.ceil(policy.keepRetiredMs / 1000)} s (its tokens' lifetime), then is dropped\n`);
      for (const kid of keys.dropped) process.stdout.write(`  dropped ${kid}: every token it signed has expired\n`);
      process.stdout.write(`  published keys: ${keys.jwks.keys.length}\n`);
    });
  });

/**
 * The key identity seals signing keys with: IDENTITY_SECRET_KEY, else the data folder's file that
 * `npm start` keeps. A key sealed under any other would not open in identity, which would then
 * make yet another one.
 */
async function identitySecretKey(): Promise<string> {
  if (process.env.IDENTITY_SECRET_KEY) return process.env.IDENTITY_SECRET_KEY;
  const file = path.join(path.resolve(process.env.WAYBILL_DATA_DIR || DEFAULT_DATA_DIR), IDENTITY_SECRET_KEY_FILE);
  const stored = await readFile(file, "utf8").catch(() => undefined);
  if (stored === undefined) {
    throw appError("missing_identity_secret_key", `set IDENTITY_SECRET_KEY (identity's sealing key); ${file} does not exist either`);
  }
  return stored.trim();
}

async function tenantIdOf(pool: ReturnType<typeof createPool>, tenant: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>("SELECT id FROM tenants WHERE name = $1 OR id = $1", [tenant]);
  if (rows.length === 0) throw appError("tenant_not_found", `no tenant named or with id ${JSON.stringify(tenant)}`);
  return rows[0].id;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  // Commander has printed its own message (or the help) already.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT_CODE);
  const message = error instanceof AppError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  process.stderr.write(`admin: ${message}\n`);
  process.exit(error instanceof AppError ? USAGE_EXIT_CODE : 1);
});
