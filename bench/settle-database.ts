// Before each measurement, the database is brought to the same state for every subject, as
// pgbench does before its runs: the previous subject's rows vacuumed and analysed (otherwise
// autovacuum starts on them during the next measurement, on the same two cores) and its WAL
// checkpointed (otherwise a checkpoint, and the full-page writes after it, land in whichever
// measurement comes next). Without it, the subject measured after the bare-insert baseline showed
// a p99 about 50 ms above the same path measured second (bench:orders, 2026-11-26).
import pg from "pg";

/** `checkpoint: false`: only the vacuum (between short slices of one run, see bench:orders). */
export async function settleDatabase(databaseUrl: string, options: { checkpoint?: boolean } = {}): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE)");
    if (options.checkpoint === false) return;
    // CHECKPOINT needs a superuser or pg_checkpoint; without either the measurement goes on.
    await client.query("CHECKPOINT").catch((error: Error) => process.stderr.write(`settle: no CHECKPOINT (${error.message})\n`));
  } finally {
    await client.end();
  }
}
