// Order list pages on a real PostgreSQL. Behind many newer orders of another status (a tenant's
// newest orders are open ones), a page of completed orders, and the page after it, must be read
// from the status index within the page's bounds, not by walking every newer order and filtering
// it: PostgreSQL takes matches to be spread evenly and, asked for whole rows, chose that walk.
// Both with the plans made for each execution's values and with the plan it may keep for all
// values after five executions (plan_cache_mode).
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOrdersJson } from "../services/orders/orders.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { decodeCursor } from "@waybill/platform/pagination.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

const TENANT = "ten_01jc0000000000000000000001";
const COMPLETED = 200;
const PENDING_AFTER = 3_000;
let env: TestEnvironment;
let pool: Pool;

const orderId = (n: number) => `ord_01jc${String(n).padStart(22, "0")}`;

beforeAll(async () => {
  env = await createTestEnvironment();
  // One connection: the statements it prepares, and its plan_cache_mode, are the ones examined.
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "orders", max: 1, applicationName: "orders-list-plans-test" });
  await migrate(pool, "orders", [PLATFORM_MIGRATIONS_DIR, path.resolve(import.meta.dirname, "../services/orders/migrations")]);
  await pool.query("INSERT INTO customers (id, tenant_id, name) VALUES ('cus_01jc0000000000000000000001', $1, 'Plans')", [TENANT]);
  // Older completed orders, then many newer pending ones (a tenant's newest orders are open ones).
  await pool.query(
    `INSERT INTO orders (id, tenant_id, short_id, customer_id, currency, status, total, items_json)
     SELECT 'ord_01jc' || lpad(g::text, 22, '0'), $1, 'S-' || g, 'cus_01jc0000000000000000000001', 'EUR',
            CASE WHEN g <= $2 THEN 'completed' ELSE 'pending' END, 10, '[]'::json
       FROM generate_series(1, $3::int) AS g`,
    [TENANT, COMPLETED, COMPLETED + PENDING_AFTER],
  );
  await pool.query("VACUUM ANALYZE orders");
});
afterAll(async () => {
  await pool?.end();
  await env?.cleanup();
});

/** Rows the plan of the prepared list statement that filters by `conditionText` read and threw away. */
async function rowsFilteredAway(conditionText: string, args: string): Promise<number> {
  const { rows } = await pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements WHERE statement LIKE $1", [`%WHERE ${conditionText} ORDER BY%`]);
  expect(rows).toHaveLength(1);
  const { rows: plan } = await pool.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${rows[0].name}(${args})`);
  let removed = 0;
  const visit = (node: Record<string, unknown>) => {
    removed += Number(node["Rows Removed by Filter"] ?? 0);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
  };
  for (const entry of plan[0]["QUERY PLAN"] as { Plan: Record<string, unknown> }[]) visit(entry.Plan);
  return removed;
}

describe.each(["force_custom_plan", "force_generic_plan"])("order list pages behind many newer orders of another status (%s)", (mode) => {
  it("reads a page of completed orders, and the next, from the status index", async () => {
    await pool.query(`SET plan_cache_mode = ${mode}`);
    const first = await listOrdersJson(pool, TENANT, { status: "completed", limit: 20 });
    expect((JSON.parse(first.dataJson) as { id: string; status: string }[]).map((o) => o.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => orderId(COMPLETED - i)),
    );
    const second = await listOrdersJson(pool, TENANT, { status: "completed", limit: 20, cursor: first.nextCursor });
    expect((JSON.parse(second.dataJson) as { id: string }[]).map((o) => o.id)).toEqual(Array.from({ length: 20 }, (_, i) => orderId(COMPLETED - 20 - i)));

    const scales = "'{}'";
    expect(await rowsFilteredAway("tenant_id = $1 AND status = $4", `'${TENANT}', 20, ${scales}, 'completed'`)).toBe(0);
    const after = decodeCursor(first.nextCursor);
    expect(await rowsFilteredAway("tenant_id = $1 AND status = $4 AND id < $5", `'${TENANT}', 20, ${scales}, 'completed', '${after}'`)).toBe(0);
  });

  it("pages through every order without a filter, newest first", async () => {
    await pool.query(`SET plan_cache_mode = ${mode}`);
    const page = await listOrdersJson(pool, TENANT, { limit: 5 });
    expect((JSON.parse(page.dataJson) as { id: string }[]).map((o) => o.id)).toEqual(
      Array.from({ length: 5 }, (_, i) => orderId(COMPLETED + PENDING_AFTER - i)),
    );
  });
});

describe("the plan of a list statement", () => {
  it("is made once and kept for every page size, not made again for each page", async () => {
    await pool.query("SET plan_cache_mode = auto");
    const customerId = "cus_01jc0000000000000000000001";
    for (const limit of [20, 100, 5, 20, 50, 1, 20, 100, 7, 20]) {
      const page = JSON.parse((await listOrdersJson(pool, TENANT, { customerId, limit })).dataJson) as { id: string }[];
      expect(page.map((o) => o.id)).toEqual(Array.from({ length: limit }, (_, i) => orderId(COMPLETED + PENDING_AFTER - i)));
    }
    const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%WHERE tenant_id = $1 AND customer_id = $4 ORDER BY%'",
    );
    expect(rows).toHaveLength(1);
    // PostgreSQL plans the first five executions for their values, then keeps one plan when it is
    // no dearer in its estimate; with `LIMIT $2` alone it estimated a tenth of the table's rows.
    expect(Number(rows[0].custom_plans)).toBeLessThanOrEqual(5);
    expect(Number(rows[0].generic_plans)).toBeGreaterThanOrEqual(5);
  });

  it("is never compiled (JIT is off on the services' connections)", async () => {
    const { rows } = await pool.query<{ jit: string }>("SHOW jit");
    expect(rows[0].jit).toBe("off");
  });
});
