// Connection and output options every command takes. They may be written before the command
// (`waybill --json hooks list`) or after it (`waybill hooks list --json`); a command with an
// option of the same name for another purpose (hooks create --url, the hook's URL) keeps its own,
// and the server is then given before the command or by WAYBILL_URL.
import { Option, type Command } from "commander";

export interface GlobalOptions {
  url?: string;
  token?: string;
  profile?: string;
  json?: boolean;
  color?: boolean;
}

const GLOBAL = new WeakSet<Option>();

function globalOptions(): Option[] {
  return [
    new Option("--url <url>", "the server (env WAYBILL_URL; default http://127.0.0.1:8080)"),
    new Option("--token <token>", "the credential (env WAYBILL_TOKEN; default the profile's)"),
    new Option("--profile <name>", 'the stored profile to use (env WAYBILL_PROFILE; default "default")'),
    new Option("--json", "print machine-readable JSON (NDJSON for listen)"),
    new Option("--no-color", "no colours (also when NO_COLOR is set or output is not a terminal)"),
  ];
}

export function addGlobalOptions(command: Command): void {
  for (const option of globalOptions()) {
    if (command.options.some((own) => own.long === option.long || (option.long === "--no-color" && own.long === "--color"))) continue;
    GLOBAL.add(option);
    command.addOption(option);
  }
}

/** Adds the global options to every command that runs something (those without subcommands). */
export function addGlobalOptionsToLeaves(command: Command): void {
  for (const sub of command.commands) {
    if (sub.commands.length > 0) addGlobalOptionsToLeaves(sub);
    else addGlobalOptions(sub);
  }
}

/** The global options given anywhere on the command line; the ones nearer the command win. */
export function globalOptionsOf(command: Command): GlobalOptions {
  const chain: Command[] = [];
  for (let current: Command | null = command; current; current = current.parent) chain.unshift(current);
  const result: Record<string, unknown> = {};
  for (const current of chain) {
    for (const option of current.options) {
      if (!GLOBAL.has(option)) continue;
      const name = option.attributeName();
      if (current.getOptionValueSource(name) === "default" || current.getOptionValue(name) === undefined) continue;
      result[name] = current.getOptionValue(name);
    }
  }
  return result as GlobalOptions;
}
