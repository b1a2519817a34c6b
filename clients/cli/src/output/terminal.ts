// What the terminal can show: colours only when stdout is a TTY and NO_COLOR is not set
// (https://no-color.org), tables on a TTY, a spinner only when stderr is a TTY.
export interface Terminal {
  interactive: boolean;
  color: boolean;
  stderrInteractive: boolean;
  columns: number;
}

type Stream = { isTTY?: boolean; columns?: number };

export function detectTerminal(
  env: NodeJS.ProcessEnv = process.env,
  options: { color?: boolean } = {},
  streams: { stdout: Stream; stderr: Stream } = { stdout: process.stdout, stderr: process.stderr },
): Terminal {
  const interactive = Boolean(streams.stdout.isTTY);
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return {
    interactive,
    color: interactive && !noColor && options.color !== false && env.TERM !== "dumb",
    stderrInteractive: Boolean(streams.stderr.isTTY),
    columns: streams.stdout.columns || 120,
  };
}
