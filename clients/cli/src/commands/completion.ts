// waybill completion bash|zsh|fish: prints the shell's completion script.
import { type Command, Argument } from "commander";
import { completionScript, SHELLS, type Shell } from "../completion/scripts.js";
import { commandTree } from "../completion/tree.js";
import { examples } from "../help.js";

export function registerCompletion(program: Command): void {
  examples(
    program
      .command("completion")
      .description("Print the shell completion script for bash, zsh or fish")
      .addArgument(new Argument("<shell>", "the shell").choices(SHELLS))
      .action((shell: Shell) => {
        process.stdout.write(completionScript(shell, commandTree(program)));
      }),
    "source <(waybill completion bash)          # now; add the line to ~/.bashrc to keep it",
    "source <(waybill completion zsh)           # in ~/.zshrc",
    "waybill completion fish > ~/.config/fish/completions/waybill.fish",
  );
}
