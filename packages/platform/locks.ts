// Session advisory locks: work that only one replica may do at a time.
import type { Pool, PoolClient } from "./db.js";

/** Runs `fn` while holding a session advisory lock, so that only one replica does it at a time. */
export async function withAdvisoryLock<T>(pool: Pool, key: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [key]);
    try {
      return await fn(client);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [key]);
    }
  } finally {
    client.release();
  }
}
