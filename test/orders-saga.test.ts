// The order transition's saga against a real PostgreSQL with a fake inventory: what a failed
// local step undoes in inventory, what it leaves alone, and that one order moves one at a time.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createCustomer } from "../services/orders/customers.js";
import type { OrdersDeps } from "../services/orders/deps.js";
import type { InventoryPort } from "../services/orders/inventory-port.js";
import { changeOrderStatus } from "../services/orders/order-transitions.js";
import { createOrderWriter } from "../services/orders/order-insert.js";
import { createOrder, getOrder } from "../services/orders/orders.js";
import { createStockIntents, reconcileStockIntents } from "../services/orders/stock-intents.js";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { createLogger } from "@waybill/platform/logger.js";
import type { Topology } from "@waybill/platform/nats.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";

const TENANT = "ten_01jc0000000000000000000000";
let env: TestEnvironment;
let pool: Pool;
/** Stock intents are written on connections of their own, as the service does. */
let intentsPool: Pool;
let customerId: string;

beforeAll(async () => {
  env = await createTestEnvironment();
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "orders", applicationName: "orders-saga-test" });
  await migrate(pool, "orders", [PLATFORM_MIGRATIONS_DIR, path.resolve(import.meta.dirname, "../services/orders/migrations")]);
  intentsPool = createPool({ databaseUrl: env.databaseUrl, schema: "orders", max: 2, applicationName: "orders-saga-test-intents" });
  customerId = (await createCustomer(deps(fakeInventory()), TENANT, { name: "Saga" })).value.id;
});
afterAll(async () => {
  await intentsPool?.end();
  await pool?.end();
  await env?.cleanup();
});

function fakeInventory(overrides: Partial<InventoryPort> = {}) {
  return {
    missingProducts: vi.fn(overrides.missingProducts ?? (async () => [])),
    reserve: vi.fn(overrides.reserve ?? (async () => ({ reserved: true }))),
    release: vi.fn(overrides.release ?? (async () => ({ released: true }))),
    consume: vi.fn(overrides.consume ?? (async () => ({ consumed: true }))),
  };
}

/** Deps whose outbox write fails for status changes: the local step after the inventory call. */
function deps(inventory: InventoryPort, options: { failStatusEvents?: boolean } = {}): OrdersDeps {
  const topology: Topology = {
    ...env.topology,
    eventSubject(tenantId, kind) {
      if (options.failStatusEvents && kind === "order.status.changed") throw new Error("outbox unavailable");
      return env.topology.eventSubject(tenantId, kind);
    },
  };
  return {
    pool,
    topology,
    inventory,
    orderWriter: createOrderWriter(pool),
    stockIntents: createStockIntents(intentsPool),
    logger: createLogger("orders-saga-test", "silent"),
  };
}

let n = 0;
async function newOrder(): Promise<string> {
  const { value } = await createOrder(deps(fakeInventory()), TENANT, {
    shortId: `SAGA-${n++}`,
    customerId,
    dueDate: null,
    currency: "EUR",
    orderItems: [
      { productId: "prd_a", quantity: 2, price: "1.00" },
      { productId: "prd_a", quantity: 1, price: "1.00" },
      { productId: "prd_b", quantity: 1, price: "1.00" },
    ],
  });
  return value.id;
}

async function statusChangesOf(orderId: string): Promise<number> {
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM orders.outbox WHERE kind = 'order.status.changed' AND event->>'orderId' = $1", [orderId]);
  return rows[0].n;
}

describe("moving to ready", () => {
  it("reserves one line per product", async () => {
    const inventory = fakeInventory();
    const orderId = await newOrder();
    expect((await changeOrderStatus(deps(inventory), TENANT, orderId, "ready")).status).toBe("ready");
    expect(inventory.reserve).toHaveBeenCalledWith(TENANT, orderId, [
      { productId: "prd_a", quantity: 3 },
      { productId: "prd_b", quantity: 1 },
    ]);
    expect(inventory.release).not.toHaveBeenCalled();
    expect(await statusChangesOf(orderId)).toBe(1);
  });

  it("releases the reservation when the local step fails after it, and stays pending", async () => {
    const inventory = fakeInventory();
    const orderId = await newOrder();
    await expect(changeOrderStatus(deps(inventory, { failStatusEvents: true }), TENANT, orderId, "ready")).rejects.toThrow("outbox unavailable");
    expect(inventory.reserve).toHaveBeenCalledOnce();
    expect(inventory.release).toHaveBeenCalledWith(TENANT, orderId);
    expect((await getOrder(pool, TENANT, orderId)).status).toBe("pending");
    expect(await statusChangesOf(orderId)).toBe(0);
  });

  it("passes a refusal through unchanged and undoes nothing: a refused reservation took nothing", async () => {
    const refusal = appError("insufficient_stock", "Not enough prd_a.");
    const inventory = fakeInventory({ reserve: async () => Promise.reject(refusal) });
    const orderId = await newOrder();
    await expect(changeOrderStatus(deps(inventory), TENANT, orderId, "ready")).rejects.toBe(refusal);
    expect(inventory.release).not.toHaveBeenCalled();
    expect((await getOrder(pool, TENANT, orderId)).status).toBe("pending");
    // Nothing left for the stock reconciler either.
    const intents = await pool.query("SELECT 1 FROM orders.stock_intents WHERE tenant_id = $1 AND order_id = $2", [TENANT, orderId]);
    expect(intents.rowCount).toBe(0);
  });

  it("releases after a lost answer, which may have reserved", async () => {
    const inventory = fakeInventory({ reserve: async () => Promise.reject(appError("upstream_unavailable", "timeout")) });
    const orderId = await newOrder();
    await expect(changeOrderStatus(deps(inventory), TENANT, orderId, "ready")).rejects.toMatchObject({ status: 503 });
    expect(inventory.release).toHaveBeenCalledOnce();
  });

  it("lets concurrent requests for one order reach inventory one at a time; the second is refused without a call", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const inventory = fakeInventory({
      reserve: async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((r) => setTimeout(r, 50));
        inFlight--;
        return { reserved: true };
      },
    });
    const orderId = await newOrder();
    const results = await Promise.allSettled([
      changeOrderStatus(deps(inventory), TENANT, orderId, "ready"),
      changeOrderStatus(deps(inventory), TENANT, orderId, "ready"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: "invalid_status_transition" });
    expect(inventory.reserve).toHaveBeenCalledOnce();
    expect(maxInFlight).toBe(1);
  });
});

describe("cancelling and completing", () => {
  it("reserves again when a cancel's local step fails after the release", async () => {
    const orderId = await newOrder();
    await changeOrderStatus(deps(fakeInventory()), TENANT, orderId, "ready");
    const inventory = fakeInventory();
    await expect(changeOrderStatus(deps(inventory, { failStatusEvents: true }), TENANT, orderId, "cancelled")).rejects.toThrow();
    expect(inventory.release).toHaveBeenCalledOnce();
    expect(inventory.reserve).toHaveBeenCalledWith(TENANT, orderId, [
      { productId: "prd_a", quantity: 3 },
      { productId: "prd_b", quantity: 1 },
    ]);
    expect((await getOrder(pool, TENANT, orderId)).status).toBe("ready");
  });

  it("calls consume on completion and release on cancel, and nothing for inProgress", async () => {
    const inventory = fakeInventory();
    const orderId = await newOrder();
    for (const status of ["ready", "inProgress", "completed"]) await changeOrderStatus(deps(inventory), TENANT, orderId, status);
    expect(inventory.reserve).toHaveBeenCalledOnce();
    expect(inventory.consume).toHaveBeenCalledOnce();
    expect(inventory.release).not.toHaveBeenCalled();
  });
});

describe("a status change interrupted between inventory and its commit", () => {
  const intentOf = async (orderId: string) =>
    (await pool.query("SELECT 1 FROM orders.stock_intents WHERE tenant_id = $1 AND order_id = $2", [TENANT, orderId])).rowCount;

  it("has its intent committed before inventory is called, and gone with the commit", async () => {
    const orderId = await newOrder();
    let seenDuringReserve: number | null = null;
    const inventory = fakeInventory({
      reserve: async () => {
        seenDuringReserve = await intentOf(orderId); // another connection: only committed rows
        return { reserved: true };
      },
    });
    await changeOrderStatus(deps(inventory), TENANT, orderId, "ready");
    expect(seenDuringReserve).toBe(1);
    expect(await intentOf(orderId)).toBe(0);
  });

  it("is put right by the reconciler: a pending order's reservation released, a ready order's reserved again", async () => {
    // What a process killed after inventory answered leaves: the intent, inventory changed, the
    // order's status as it was.
    const pending = await newOrder();
    const ready = await newOrder();
    await changeOrderStatus(deps(fakeInventory()), TENANT, ready, "ready");
    const held = new Set([pending]); // the pending order's reservation went through; the ready one's was released
    const inventory = fakeInventory({
      reserve: async (_tenant, orderId) => ({ reserved: !held.has(orderId) && Boolean(held.add(orderId)) }),
      release: async (_tenant, orderId) => ({ released: held.delete(orderId) }),
    });
    for (const orderId of [pending, ready]) await createStockIntents(intentsPool).mark(TENANT, orderId);

    const logger = createLogger("orders-saga-test", "silent");
    // (Earlier tests' rolled-back changes left intents too; the pass settles those as well.)
    const done = await reconcileStockIntents({ pool, inventory, logger, minAgeMs: 0 });
    expect(done).toEqual(
      expect.arrayContaining([
        { orderId: pending, status: "pending", action: "release", changed: true },
        { orderId: ready, status: "ready", action: "reserve", changed: true },
      ]),
    );
    expect(held.has(ready)).toBe(true);
    expect(held.has(pending)).toBe(false);
    expect(await intentOf(pending)).toBe(0);
    expect(await intentOf(ready)).toBe(0);
    // A second pass finds nothing to do.
    expect(await reconcileStockIntents({ pool, inventory, logger, minAgeMs: 0 })).toEqual([]);
  });

  it("leaves an intent alone while a live status change holds its order, and young intents too", async () => {
    const orderId = await newOrder();
    await createStockIntents(intentsPool).mark(TENANT, orderId);
    const inventory = fakeInventory();
    const logger = createLogger("orders-saga-test", "silent");
    expect(await reconcileStockIntents({ pool, inventory, logger, minAgeMs: 60_000 })).toEqual([]);

    const holder = await pool.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM orders.orders WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [TENANT, orderId]);
      expect(await reconcileStockIntents({ pool, inventory, logger, minAgeMs: 0 })).toEqual([]);
      expect(await intentOf(orderId)).toBe(1);
      await holder.query("ROLLBACK");
    } finally {
      holder.release();
    }
    expect(await reconcileStockIntents({ pool, inventory, logger, minAgeMs: 0 })).toEqual([{ orderId, status: "pending", action: "release", changed: true }]);
    expect(inventory.reserve).not.toHaveBeenCalled();
  });
});
