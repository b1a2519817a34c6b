// Ratio lines every benchmark prints in one form, so a script can read them:
//   ratio <name>: <value> (target >= <goal>)
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function mean(values: number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function ratioLine(name: string, value: number, goal?: number, note?: string): string {
  const target = goal === undefined ? "" : ` (target >= ${goal.toFixed(2)})`;
  return `ratio ${name}: ${value.toFixed(2)}${target}${note ? `  ${note}` : ""}\n`;
}

/** A figure with its spread over the runs: "median (min–max)". */
export function spread(values: number[], digits = 0): string {
  return `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
}
