// Shell completion scripts for bash, zsh (through bashcompinit) and fish, generated from the
// command tree: commands, subcommands and their options. Each shell finds the deepest command
// path among the words typed so far (ids and option values in between are skipped).
import type { CommandNode } from "./tree.js";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

const words = (node: CommandNode) => [...node.subcommands.map((s) => s.name), ...node.options.map((o) => o.flag)].join(" ");
const singleQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function bashScript(nodes: CommandNode[]): string {
  const paths = `|${nodes.map((n) => n.path).join("|")}|`;
  const cases = nodes.map((n) => `    ${JSON.stringify(n.path)}) opts=${singleQuoted(words(n))} ;;`).join("\n");
  return `# waybill completion for bash: source <(waybill completion bash)
_waybill() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" candidate word i opts=""
  local paths=${singleQuoted(paths)}
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    candidate="\${path:+$path }$word"
    [[ "$paths" == *"|$candidate|"* ]] && path="$candidate"
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _waybill waybill
`;
}

export function zshScript(nodes: CommandNode[]): string {
  return `#compdef waybill
# waybill completion for zsh: source <(waybill completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(nodes).split("\n").slice(1).join("\n")}`;
}

export function fishScript(nodes: CommandNode[]): string {
  const paths = nodes.map((n) => n.path).filter(Boolean);
  const lines = [
    "# waybill completion for fish: waybill completion fish > ~/.config/fish/completions/waybill.fish",
    "function __waybill_path",
    "    set -l path ''",
    "    for word in (commandline -opc)[2..-1]",
    "        string match -q -- '-*' $word; and continue",
    '        set -l candidate (string trim -- "$path $word")',
    `        contains -- $candidate ${paths.map(singleQuoted).join(" ")}; and set path $candidate`,
    "    end",
    "    echo $path",
    "end",
    "complete -c waybill -f",
  ];
  for (const node of nodes) {
    const when = `-n ${singleQuoted(`test (__waybill_path) = ${singleQuoted(node.path)}`)}`;
    for (const sub of node.subcommands) lines.push(`complete -c waybill ${when} -a ${singleQuoted(sub.name)} -d ${singleQuoted(sub.description.slice(0, 80))}`);
    for (const option of node.options) {
      const flag = option.flag.startsWith("--") ? `-l ${option.flag.slice(2)}` : `-s ${option.flag.slice(1)}`;
      lines.push(`complete -c waybill ${when} ${flag} -d ${singleQuoted(option.description.slice(0, 80))}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

export function completionScript(shell: Shell, nodes: CommandNode[]): string {
  return shell === "bash" ? bashScript(nodes) : shell === "zsh" ? zshScript(nodes) : fishScript(nodes);
}
