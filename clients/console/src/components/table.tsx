// The console's tables: a header row of column names, one row per item, scrolling sideways
// inside its own box on a narrow screen (the page itself never does).
import type { ReactNode } from "react";

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
}

export function Table<T>({ rows, columns, rowKey }: { rows: T[]; columns: Column<T>[]; rowKey(row: T, index: number): string }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col">
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row, i)}>
              {columns.map((c) => (
                <td key={c.header}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
