// Entry point: runs the command line and turns the outcome into an exit status (0 done,
// 1 the API refused, could not be reached or there is no credential, 2 the command line was wrong).
import { CommanderError } from "commander";
import { buildProgram } from "./program.js";
import { describeError, EXIT_OK, EXIT_USAGE, exitCodeFor, reportOf } from "./errors.js";

// `waybill … | head` closes the pipe early: that is not a failure.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(EXIT_OK);
  throw error;
});

const HELP_SHOWN = new Set(["commander.helpDisplayed", "commander.version"]);

/** --json anywhere before a lone `--` asks for machine-readable errors too. */
function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

async function main(argv: string[]): Promise<number> {
  const json = wantsJson(argv.slice(2));
  try {
    await buildProgram({ jsonErrors: json }).parseAsync(argv);
    return EXIT_OK;
  } catch (error) {
    // Commander has already printed its message (and the help hint).
    if (error instanceof CommanderError) return HELP_SHOWN.has(error.code) ? EXIT_OK : EXIT_USAGE;
    if (json) {
      process.stderr.write(`${JSON.stringify({ error: reportOf(error) })}\n`);
      return exitCodeFor(error);
    }
    const red = process.stderr.isTTY && !process.env.NO_COLOR ? (text: string) => `\u001b[31m${text}\u001b[39m` : (text: string) => text;
    const [first, ...rest] = describeError(error);
    process.stderr.write(`${red(first)}\n${rest.map((line) => `${line}\n`).join("")}`);
    return exitCodeFor(error);
  }
}

process.exitCode = await main(process.argv);
