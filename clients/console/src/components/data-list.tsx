// Every list of the console: a table on a wide screen, a stack of cards below 640 px (pure CSS
// over the same markup, see app.css). A column says its part on the card: the title, the status
// pill at the top right, the primary action at the bottom, a labelled field, or hidden.
import type { ReactNode } from "react";

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
  /** Its place on a phone's card (default: a labelled field). */
  card?: "title" | "status" | "action" | "field" | "hidden";
  numeric?: boolean;
}

const CARD_CLASS = { title: "card-title", status: "card-status", action: "card-action", field: "", hidden: "phone-hidden" } as const;

export function DataList<T>({ rows, columns, rowKey, label }: { rows: T[]; columns: Column<T>[]; rowKey(row: T, index: number): string; label: string }) {
  return (
    <div className="data-list">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" className={c.numeric ? "num" : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row, i)}>
              {columns.map((c) => (
                <td key={c.header} data-label={c.header} className={[CARD_CLASS[c.card ?? "field"], c.numeric ? "num" : ""].join(" ").trim() || undefined}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
