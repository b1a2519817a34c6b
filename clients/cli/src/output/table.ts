// Plain aligned tables for the terminal: a header row and one row per item, long cells cut.
import { visibleLength, type Colors } from "./colors.js";

export interface Column<T> {
  header: string;
  value(item: T): string;
  /** Longest the cell may be before it is cut with "…". */
  max?: number;
}

const DEFAULT_CELL_MAX = 48;

function cut(text: string, max: number): string {
  const single = text.replace(/\s+/g, " ");
  return single.length > max ? `${single.slice(0, max - 1)}…` : single;
}

export function renderTable<T>(items: T[], columns: Column<T>[], c: Colors): string {
  const rows = items.map((item) => columns.map((column) => cut(column.value(item), column.max ?? DEFAULT_CELL_MAX)));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...rows.map((row) => visibleLength(row[i]))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + " ".repeat(widths[i] - visibleLength(cell))))
      .join("  ")
      .trimEnd();
  return [c.bold(line(columns.map((column) => column.header.toUpperCase()))), ...rows.map(line)].join("\n");
}

/** One object as "key  value" lines. */
export function renderRecord(fields: [string, string][], c: Colors): string {
  const width = Math.max(...fields.map(([key]) => key.length));
  return fields.map(([key, value]) => `${c.dim(key.padEnd(width))}  ${value}`).join("\n");
}
