// login, logout, whoami: the credential a profile keeps.
import type { Command } from "commander";
import { createWaybillClient, data, WaybillApiError, type WaybillClient } from "@waybill/sdk";
import { profilesPath, removeProfile, writeProfile, type Profile } from "../config/profiles.js";
import { action, type Context } from "../context.js";
import { UsageError } from "../errors.js";
import { examples } from "../help.js";
import { cell } from "../output/printer.js";
import { askLine, askSecret, canPrompt, readStdinLine } from "../prompt.js";

const TOKEN_TYPE = /^(api|cli|machine|sensor)-/;

export function registerAuth(program: Command): void {
  examples(
    program
      .command("login")
      .description("Store a credential in a profile: log in with email and password, or save an API token given with --token")
      .option("--email <email>", "the user's email (asked when absent)")
      .option("--password-stdin", "read the password from standard input instead of asking")
      .action(
        action(async (context, options: { email?: string; passwordStdin?: boolean }) => {
          // --token is the global option: given to login, it is the token to save.
          const profile = context.source.token === "flag" ? await tokenProfile(context, context.token!) : await sessionProfile(context, options);
          await writeProfile(context.profileName, profile);
          context.print.result(
            `${context.print.c.green("✓")} Logged in to ${profile.url} as ${profile.email ?? `a ${profile.credential} token`} (profile "${context.profileName}", saved in ${profilesPath()})`,
            {
              profile: context.profileName,
              url: profile.url,
              credential: profile.credential,
              email: profile.email ?? null,
              expiresAt: profile.expiresAt ?? null,
            },
          );
        }),
      ),
    "waybill login",
    "waybill login --email admin@example.com",
    "waybill login --token cli-… --url https://waybill.example.com",
    'echo "$PASSWORD" | waybill login --email ci@example.com --password-stdin --profile ci',
  );

  examples(
    program
      .command("logout")
      .description("Forget the profile's stored credential")
      .action(
        action(async (context) => {
          const removed = await removeProfile(context.profileName);
          if (!removed) {
            context.print.result(`No profile "${context.profileName}" to log out of.`, { profile: context.profileName, removed: false });
            return;
          }
          context.print.result(`Logged out (profile "${context.profileName}" removed).`, { profile: context.profileName, removed: true });
          if (context.profile?.credential !== "session") context.print.note("The token itself still works until revoked: `waybill tokens revoke <id>`.");
        }),
      ),
    "waybill logout",
    "waybill logout --profile staging",
  );

  examples(
    program
      .command("whoami")
      .description("Show which server and credential commands use, and check that the credential works")
      .action(
        action(async (context) => {
          const api = context.api();
          const identity = describeCredential(context.token!);
          if (context.source.token === "profile" && context.profile?.email) identity.user = context.profile.email;
          const check = await context.wait("Checking the credential", verify(api));
          const value = {
            url: context.url,
            profile: context.source.token === "profile" ? context.profileName : null,
            credentialFrom: context.source.token,
            ...identity,
            access: check,
          };
          context.print.item(value, [
            ["url", context.url],
            ["profile", cell(value.profile)],
            [
              "credential",
              `${identity.credential}${context.source.token !== "profile" ? ` (from ${context.source.token === "env" ? "WAYBILL_TOKEN" : "--token"})` : ""}`,
            ],
            ...(identity.user ? ([["user", identity.user]] as [string, string][]) : []),
            ...(identity.role ? ([["role", identity.role]] as [string, string][]) : []),
            ["tenant", cell(identity.tenantId)],
            ...(identity.expiresAt ? ([["expires", identity.expiresAt]] as [string, string][]) : []),
            ["access", check === "ok" ? context.print.c.green("ok") : context.print.c.yellow(check)],
          ]);
        }),
      ),
    "waybill whoami",
    "WAYBILL_TOKEN=cli-… waybill whoami --json",
  );
}

async function tokenProfile(context: Context, token: string): Promise<Profile> {
  const match = TOKEN_TYPE.exec(token);
  if (!match) throw new UsageError("--token must be an API token (api-…, cli-…, machine-… or sensor-…)");
  const api = createWaybillClient({ baseUrl: context.url, token });
  await context.wait("Checking the token", verify(api));
  return { url: context.url, token, credential: match[1] as Profile["credential"], savedAt: new Date().toISOString() };
}

async function sessionProfile(context: Context, options: { email?: string; passwordStdin?: boolean }): Promise<Profile> {
  if (!options.passwordStdin && !canPrompt()) throw new UsageError("no terminal to ask for the password: use --password-stdin, or --token");
  const email = options.email ?? (canPrompt() ? (await askLine("Email: ")).trim() : undefined);
  if (!email) throw new UsageError("--email is required");
  const password = options.passwordStdin ? await readStdinLine() : await askSecret("Password: ");
  if (!password) throw new UsageError("the password is empty");
  const api = createWaybillClient({ baseUrl: context.url });
  const session = await context.wait("Logging in", data(api.POST("/auth/login", { body: { email, password } })));
  return { url: context.url, token: session.accessToken, credential: "session", email, expiresAt: session.expiresAt, savedAt: new Date().toISOString() };
}

/** "ok" when the credential may read; a valid credential that may not is still accepted (sensor tokens). */
async function verify(api: WaybillClient): Promise<string> {
  try {
    await api.GET("/event-kinds");
    return "ok";
  } catch (error) {
    if (error instanceof WaybillApiError && error.status === 403) return "valid, but may not read business data";
    throw error;
  }
}

interface CredentialDescription {
  credential: string;
  user?: string;
  role?: string;
  tenantId?: string;
  expiresAt?: string;
}

function describeCredential(token: string): CredentialDescription {
  const type = TOKEN_TYPE.exec(token);
  if (type) return { credential: `${type[1]} token ${token.slice(0, type[0].length + 4)}…` };
  try {
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")) as Record<string, unknown>;
    const str = (key: string) => (typeof claims[key] === "string" ? (claims[key] as string) : undefined);
    return {
      credential: "session",
      user: str("email") ?? str("sub"),
      role: str("role"),
      tenantId: str("tenantId") ?? str("tid"),
      expiresAt: typeof claims.exp === "number" ? new Date(claims.exp * 1000).toISOString() : undefined,
    };
  } catch {
    return { credential: "session" };
  }
}
