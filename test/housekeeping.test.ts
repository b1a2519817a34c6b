// Housekeeping against a real PostgreSQL: expired inbox ids and Idempotency-Key records go,
// recent ones stay (a replay within 24 h and a redelivery within a week still work).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { pruneExpired } from "../packages/platform/housekeeping.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

let env: TestEnvironment;
let pool: Pool;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "housekeeping", applicationName: "housekeeping-test" });
  await migrate(pool, "housekeeping", [PLATFORM_MIGRATIONS_DIR]);
});

afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

describe("housekeeping", () => {
  it("deletes inbox ids older than a week and Idempotency-Key records older than 24 h, in batches", async () => {
    await pool.query(
      `INSERT INTO inbox (consumer, message_id, processed_at)
       SELECT 'c', 'old-' || n, now() - interval '8 days' FROM generate_series(1, 5) n
       UNION ALL SELECT 'c', 'recent-' || n, now() - interval '6 days' FROM generate_series(1, 3) n`,
    );
    await pool.query(
      `INSERT INTO idempotency_keys (tenant_id, scope, key, request_hash, response, created_at)
       SELECT 'ten_1', 'orders.create', 'old-' || n, 'h', '{}'::jsonb, now() - interval '25 hours' FROM generate_series(1, 4) n
       UNION ALL SELECT 'ten_1', 'orders.create', 'recent-' || n, 'h', '{}'::jsonb, now() - interval '23 hours' FROM generate_series(1, 2) n`,
    );

    // A batch of 2 makes several rounds for each table.
    expect(await pruneExpired(pool, 2)).toEqual({ inbox: 5, idempotencyKeys: 4 });

    const inbox = await pool.query<{ message_id: string }>("SELECT message_id FROM inbox ORDER BY message_id");
    expect(inbox.rows.map((r) => r.message_id)).toEqual(["recent-1", "recent-2", "recent-3"]);
    const keys = await pool.query<{ key: string }>("SELECT key FROM idempotency_keys ORDER BY key");
    expect(keys.rows.map((r) => r.key)).toEqual(["recent-1", "recent-2"]);
    expect(await pruneExpired(pool, 2)).toEqual({ inbox: 0, idempotencyKeys: 0 });
  });
});
