// Every command's --help ends with examples.
import type { Command } from "commander";

export function examples(command: Command, ...lines: string[]): Command {
  return command.addHelpText("after", `\nExamples:\n${lines.map((line) => `  $ ${line}`).join("\n")}\n`);
}
