// What every command works with: the connection (URL and credential, from flags, environment
// or the stored profile, in that order), the SDK client, and the printer.
import type { Command } from "commander";
import { createWaybillClient, DEFAULT_BASE_URL, type WaybillClient } from "@waybill/sdk";
import { DEFAULT_PROFILE, readProfile, type Profile } from "./config/profiles.js";
import { NotLoggedInError, UsageError } from "./errors.js";
import { globalOptionsOf } from "./global-options.js";
import { createPrinter, type Printer } from "./output/printer.js";
import { withSpinner } from "./output/spinner.js";
import { detectTerminal } from "./output/terminal.js";
import { VERSION } from "./version.js";

export interface Context {
  url: string;
  token: string | undefined;
  profileName: string;
  profile: Profile | undefined;
  /** Where the URL and the credential came from, for whoami. */
  source: { url: "flag" | "env" | "profile" | "default"; token: "flag" | "env" | "profile" | "none" };
  print: Printer;
  /** The API client; refuses to start without a credential. `headers` go on every request. */
  api(headers?: Record<string, string>): WaybillClient;
  /** Runs `work` with a spinner on an interactive stderr. */
  wait<T>(text: string, work: Promise<T>): Promise<T>;
}

export async function contextOf(command: Command, env: NodeJS.ProcessEnv = process.env): Promise<Context> {
  const options = globalOptionsOf(command);
  const profileName = options.profile ?? env.WAYBILL_PROFILE ?? DEFAULT_PROFILE;
  const profile = await readProfile(profileName, env);
  if (options.profile && !profile && !isLogin(command))
    throw new UsageError(`no profile named "${options.profile}"; create it with \`waybill login --profile ${options.profile}\``);
  // An empty variable (WAYBILL_TOKEN= waybill …) is an unset one.
  const envUrl = env.WAYBILL_URL || undefined;
  const envToken = env.WAYBILL_TOKEN || undefined;
  const url = options.url ?? envUrl ?? profile?.url ?? DEFAULT_BASE_URL;
  const token = options.token ?? envToken ?? profile?.token;
  const terminal = detectTerminal(env, { color: options.color });
  const print = createPrinter(terminal, Boolean(options.json));
  const context: Context = {
    url,
    token,
    profileName,
    profile,
    source: {
      url: options.url ? "flag" : envUrl ? "env" : profile?.url ? "profile" : "default",
      token: options.token ? "flag" : envToken ? "env" : profile?.token ? "profile" : "none",
    },
    print,
    api(headers = {}) {
      if (!token) throw new NotLoggedInError(`not logged in (no profile "${profileName}", no --token, no WAYBILL_TOKEN)`);
      return createWaybillClient({ baseUrl: url, token, headers: { "user-agent": `waybill-cli/${VERSION}`, ...headers } });
    },
    wait: (text, work) => withSpinner(terminal.stderrInteractive, text, work),
  };
  return context;
}

function isLogin(command: Command): boolean {
  return command.name() === "login";
}

/** An action handler that receives the context, its arguments and its own options. */
export function action<A extends unknown[]>(run: (context: Context, ...args: A) => Promise<void>) {
  return async (...args: unknown[]) => {
    const command = args.at(-1) as Command;
    const context = await contextOf(command);
    await run(context, ...(args.slice(0, -1) as A));
  };
}
