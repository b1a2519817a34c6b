// Everything a command prints on stdout goes through here: JSON for scripts (--json), tables and
// records for people. Notes for people go to stderr, so stdout stays parseable.
import { colors, type Colors } from "./colors.js";
import { renderRecord, renderTable, type Column } from "./table.js";
import type { Terminal } from "./terminal.js";

export interface Printer {
  json: boolean;
  c: Colors;
  terminal: Terminal;
  /** A list: an array in JSON, a table otherwise. */
  list<T>(items: T[], columns: Column<T>[], empty?: string): void;
  /** One object: itself in JSON, `fields` as key/value lines otherwise. */
  item(value: unknown, fields: [string, string][]): void;
  /** A line for people (suppressed in JSON mode, where `value` is printed instead). */
  result(text: string, value?: unknown): void;
  /** One NDJSON line in JSON mode, `text` otherwise. */
  line(text: string, value: unknown): void;
  /** A note for people on stderr (warnings, hints). */
  note(text: string): void;
}

export function createPrinter(terminal: Terminal, json: boolean): Printer {
  const c = colors(terminal.color);
  const out = (text: string) => process.stdout.write(`${text}\n`);
  return {
    json,
    c,
    terminal,
    list(items, columns, empty = "Nothing to show.") {
      if (json) return out(JSON.stringify(items, null, 2));
      if (items.length === 0) return void process.stderr.write(`${empty}\n`);
      out(renderTable(items, columns, c));
    },
    item(value, fields) {
      if (json) return out(JSON.stringify(value, null, 2));
      out(renderRecord(fields, c));
    },
    result(text, value) {
      if (json) {
        if (value !== undefined) out(JSON.stringify(value, null, 2));
        return;
      }
      out(text);
    },
    line(text, value) {
      out(json ? JSON.stringify(value) : text);
    },
    note(text) {
      process.stderr.write(`${text}\n`);
    },
  };
}

/** Cells: absent values as "-", times as given (ISO 8601 UTC). */
export const cell = (value: unknown): string => (value === null || value === undefined || value === "" ? "-" : String(value));
