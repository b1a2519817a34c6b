// One SQL transaction on a connection of the pool; a commit that wrote outbox rows wakes the relay.
import type { Pool, PoolClient } from "./db.js";
import { clearOutboxWritten, notifyOutboxCommitted, outboxWritten } from "./outbox-signal.js";

/**
 * Runs `fn` in a transaction. `begin` opens it: "BEGIN", or BEGIN followed by statements without
 * parameters that belong at its start (taking locks), sent in the same round trip.
 */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>, begin = "BEGIN"): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query("COMMIT");
    const written = outboxWritten(client);
    if (written) notifyOutboxCommitted(pool, written === "in-table" ? undefined : written);
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    clearOutboxWritten(client);
    client.release();
  }
}
