// The command tree as plain data (paths, subcommands, options), read from commander, for the
// completion scripts.
import type { Command } from "commander";

export interface CommandNode {
  /** "hooks create"; "" for the program. */
  path: string;
  description: string;
  subcommands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

export function commandTree(program: Command): CommandNode[] {
  const nodes: CommandNode[] = [];
  const visit = (command: Command, path: string) => {
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      options: [
        ...command.options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)).map((flag) => ({ flag, description: o.description }))),
        { flag: "--help", description: "show help" },
      ],
    });
    for (const sub of command.commands) visit(sub, path ? `${path} ${sub.name()}` : sub.name());
  };
  visit(program, "");
  return nodes;
}
