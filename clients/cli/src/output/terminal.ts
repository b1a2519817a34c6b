// What the terminal can show: colours only when stdout is a TTY and NO_COLOR is not set
// (https://no-color.org), tables on a TTY, a spinner only when stderr is a TTY.
export interface Terminal {
  interactive: boolean;
  color: boolean;
  stderrInteractive: boolean;
  columns: number;
}

export function detectTerminal(env: NodeJS.ProcessEnv = process.env, options: { color?: boolean } = {}): Terminal {
  const interactive = Boolean(process.stdout.isTTY);
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return {
    interactive,
    color: interactive && !noColor && options.color !== false && env.TERM !== "dumb",
    stderrInteractive: Boolean(process.stderr.isTTY),
    columns: process.stdout.columns || 120,
  };
}
