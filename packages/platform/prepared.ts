// Named prepared statements for the hot paths. PostgreSQL parses and plans an unnamed statement on
// every execution; for the batched statements of order creation and webhook delivery (CTEs over
// jsonb_to_recordset) planning takes about as long as running them (pg_stat_statements with
// track_planning shows both). A named statement is parsed once per
// connection, and after five executions PostgreSQL keeps a generic plan when it costs no more.
import type pg from "pg";

/**
 * A statement prepared once per connection under `name`. Its result columns must be named, never
 * `*`: a migration that adds a column to a table would change the result of a `*` statement, and
 * PostgreSQL then refuses the prepared statement ("cached plan must not change result type") on
 * every connection that prepared it. `name` must be unique in the process.
 */
export function preparedStatement(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  if (/RETURNING\s+\*|SELECT\s+\*\s+FROM\s+(?!jsonb?_to_recordset)/i.test(text)) {
    throw new Error(`prepared statement ${name} names no columns (*): see prepared.ts`);
  }
  return (values) => ({ name, text, values });
}
