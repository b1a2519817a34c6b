// waybill login: ends with an API token of type cli created for this machine ("waybill CLI on
// <host>", 90 days unless --expires), stored in the profile (0600). A password login's session
// JWT is only the means of creating it; --token api-… creates it with that token instead.
import os from "node:os";
import type { Command } from "commander";
import { createWaybillClient, data, WaybillApiError, type WaybillClient } from "@waybill/sdk";
import { profilesPath, writeProfile, type Profile } from "../../config/profiles.js";
import { action, type Context } from "../../context.js";
import { UsageError, withHint } from "../../errors.js";
import { examples } from "../../help.js";
import { askLine, askSecret, canPrompt, readStdinLine } from "../../prompt.js";
import { VERSION } from "../../version.js";
import { tokenTypeOf, verify } from "./credential.js";
import { DEFAULT_LOGIN_DAYS, expiresOption, expiryOf } from "./expiry.js";

interface LoginOptions {
  email?: string;
  passwordStdin?: boolean;
  expires?: string;
  keepToken?: boolean;
}

export const cliTokenName = (host: string = os.hostname()): string => `waybill CLI on ${host}`;

export function registerLogin(program: Command): void {
  examples(
    program
      .command("login")
      .description(
        `Log in: creates a cli API token for this machine ("waybill CLI on <host>", valid ${DEFAULT_LOGIN_DAYS} days) and stores it in the profile. With email and password, or with --token`,
      )
      .option("--email <email>", "the user's email (asked when absent)")
      .option("--password-stdin", "read the password from standard input instead of asking")
      .option(
        "--expires <when>",
        `when the created token stops working: a duration (90d, 12h) or an ISO 8601 time (default ${DEFAULT_LOGIN_DAYS}d)`,
        expiresOption,
      )
      .option("--keep-token", "with --token: store that token as it is instead of creating a cli token with it")
      .action(
        action(async (context, options: LoginOptions) => {
          // --token is the global option: given to login, it is the credential to log in with.
          const profile = context.source.token === "flag" ? await loginWithToken(context, context.token!, options) : await loginWithPassword(context, options);
          await writeProfile(context.profileName, profile);
          const { c } = context.print;
          const who = profile.email ? ` as ${profile.email}` : "";
          const what = profile.createdByLogin
            ? `with a new ${profile.credential} token "${profile.tokenName}" (${profile.tokenId}, expires ${profile.expiresAt})`
            : profile.credential === "session"
              ? `with a session that expires ${profile.expiresAt}`
              : `with the ${profile.credential} token given`;
          context.print.result(`${c.green("✓")} Logged in to ${profile.url}${who} ${what}; saved in profile "${context.profileName}" (${profilesPath()})`, {
            profile: context.profileName,
            url: profile.url,
            credential: profile.credential,
            email: profile.email ?? null,
            tokenId: profile.tokenId ?? null,
            tokenName: profile.tokenName ?? null,
            expiresAt: profile.expiresAt ?? null,
          });
        }),
      ),
    "waybill login",
    "waybill login --email admin@example.com --expires 30d",
    "waybill login --token api-… --url https://waybill.example.com",
    "waybill login --token cli-…            # a cli token made in the console, stored as it is",
    'echo "$PASSWORD" | waybill login --email ci@example.com --password-stdin --profile ci',
  );
}

const client = (context: Context, token?: string): WaybillClient =>
  createWaybillClient({ baseUrl: context.url, token, headers: { "user-agent": `waybill-cli/${VERSION}` } });

async function loginWithToken(context: Context, token: string, options: LoginOptions): Promise<Profile> {
  const type = tokenTypeOf(token);
  if (!type) throw new UsageError("--token must be an API token (api-…, cli-…, machine-… or sensor-…)");
  const api = client(context, token);
  await context.wait("Checking the token", verify(api)).catch((error) => {
    throw error instanceof WaybillApiError && error.status === 401 ? withHint(error, "the token is unknown, expired or revoked") : error;
  });
  // Only an api token may create tokens; the others are stored as given (they are the user's, so
  // logout leaves them working).
  if (type === "api" && !options.keepToken) return createCliToken(context, api, options, undefined);
  return { url: context.url, token, credential: type, savedAt: new Date().toISOString() };
}

async function loginWithPassword(context: Context, options: LoginOptions): Promise<Profile> {
  if (options.keepToken) throw new UsageError("--keep-token goes with --token");
  if (!options.passwordStdin && !canPrompt()) throw new UsageError("no terminal to ask for the password: use --password-stdin, or --token");
  const email = options.email ?? (canPrompt() ? (await askLine("Email: ")).trim() : undefined);
  if (!email) throw new UsageError("--email is required");
  const password = options.passwordStdin ? await readStdinLine() : await askSecret("Password: ");
  if (!password) throw new UsageError("the password is empty");
  const session = await context.wait("Logging in", data(client(context).POST("/auth/login", { body: { email, password } }))).catch((error) => {
    throw error instanceof WaybillApiError && error.status === 401 ? withHint(error, "check the email and the password") : error;
  });
  try {
    return await createCliToken(context, client(context, session.accessToken), options, email);
  } catch (error) {
    // A member may not create tokens: keep the short session rather than nothing, and say so.
    if (!(error instanceof WaybillApiError && error.status === 403)) throw error;
    context.print.note(
      context.print.c.yellow(
        `⚠ ${email} may not create API tokens, so this login is a session that ends at ${session.expiresAt}. Ask an admin for a cli token and run \`waybill login --token cli-…\` for a lasting one.`,
      ),
    );
    return { url: context.url, token: session.accessToken, credential: "session", email, expiresAt: session.expiresAt, savedAt: new Date().toISOString() };
  }
}

async function createCliToken(context: Context, api: WaybillClient, options: LoginOptions, email: string | undefined): Promise<Profile> {
  const body = { name: cliTokenName(), type: "cli" as const, expiresAt: expiryOf(options.expires) };
  const created = await context.wait("Creating a cli token for this machine", data(api.POST("/tokens", { body })));
  if (!created.token) throw new Error("the server answered without the token's value");
  return {
    url: context.url,
    token: created.token,
    credential: "cli",
    ...(email ? { email } : {}),
    tokenId: created.id,
    tokenName: created.name,
    createdByLogin: true,
    expiresAt: created.expiresAt ?? body.expiresAt,
    savedAt: new Date().toISOString(),
  };
}
