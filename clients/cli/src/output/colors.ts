// ANSI styles that are plain text unless colours are on.
export interface Colors {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export function colors(enabled: boolean): Colors {
  if (!enabled) {
    const plain = (text: string) => text;
    return { bold: plain, dim: plain, green: plain, red: plain, yellow: plain, cyan: plain };
  }
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) };
}

/** The visible width of text that may hold ANSI styles. */
export function visibleLength(text: string): number {
  return text.replace(/\u001b\[[0-9;]*m/g, "").length;
}
