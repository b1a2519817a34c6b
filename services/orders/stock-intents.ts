// Crash safety for an order's stock effect. A status change calls inventory (reserve, release,
// consume) and then commits the new status; the saga undoes the call when the commit fails, but
// a process killed in between leaves inventory changed and the order as it was (a reservation
// held by a pending order, or none held by a ready one). So the change first records an intent,
// committed at once on a connection of its own, and its transaction deletes it; the reconciler
// takes intents whose order is no longer locked by a live transaction and makes inventory match
// the order's committed status. Every inventory call it makes is idempotent per order.
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Pool, Queryable } from "@waybill/platform/db.js";
import { AppError } from "@waybill/platform/errors.js";
import { GRPC_DEADLINE_MS } from "@waybill/platform/grpc.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { StockIntents } from "./deps.js";
import { stockLinesOf, type InventoryPort } from "./inventory-port.js";
import { getOrder } from "./orders.js";

/**
 * `pool` must not be the one whose connection the caller's transaction holds: a few connections
 * of their own, each used for one statement, so transitions waiting for them cannot starve it.
 */
export function createStockIntents(pool: Pool): StockIntents {
  return {
    async mark(tenantId, orderId) {
      await pool.query(
        `INSERT INTO stock_intents (tenant_id, order_id) VALUES ($1, $2)
         ON CONFLICT (tenant_id, order_id) DO UPDATE SET created_at = now()`,
        [tenantId, orderId],
      );
    },
    clear: (tenantId, orderId) => clearStockIntent(pool, tenantId, orderId),
  };
}

/** In the status change's own transaction: the intent goes when the change commits. */
export async function clearStockIntent(db: Queryable, tenantId: string, orderId: string): Promise<void> {
  await db.query("DELETE FROM stock_intents WHERE tenant_id = $1 AND order_id = $2", [tenantId, orderId]);
}

/**
 * Younger intents are left alone even when their order is unlocked: the inventory call of a
 * change that died may still be running in inventory until its deadline.
 */
export const STOCK_INTENT_MIN_AGE_MS = GRPC_DEADLINE_MS + 5_000;
export const STOCK_RECONCILE_INTERVAL_MS = 5_000;
const BATCH = 50;

export interface StockReconcilerDeps {
  pool: Pool;
  inventory: Pick<InventoryPort, "reserve" | "release" | "consume">;
  logger: Pick<Logger, "warn" | "error">;
  minAgeMs?: number;
}

export type Reconciliation = { orderId: string; status: string; action: "reserve" | "release" | "consume" | "none"; changed: boolean };

/** One pass over the intents old enough; returns what it did (tests and logs). */
export async function reconcileStockIntents(deps: StockReconcilerDeps): Promise<Reconciliation[]> {
  const minAgeMs = deps.minAgeMs ?? STOCK_INTENT_MIN_AGE_MS;
  const { rows: intents } = await deps.pool.query<{ tenant_id: string; order_id: string }>(
    `SELECT tenant_id, order_id FROM stock_intents WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY created_at LIMIT ${BATCH}`,
    [minAgeMs],
  );
  const done: Reconciliation[] = [];
  for (const intent of intents) {
    const outcome = await withTransaction(deps.pool, async (client) => {
      // A live status change holds this lock from before its intent until its commit.
      const { rows } = await client.query<{ status: string }>("SELECT status FROM orders WHERE tenant_id = $1 AND id = $2 FOR UPDATE SKIP LOCKED", [
        intent.tenant_id,
        intent.order_id,
      ]);
      if (rows.length === 0) {
        const exists = await client.query("SELECT 1 FROM orders WHERE tenant_id = $1 AND id = $2", [intent.tenant_id, intent.order_id]);
        if (exists.rowCount === 0) await clearStockIntent(client, intent.tenant_id, intent.order_id);
        return null; // locked: its change is alive and will clear the intent itself
      }
      const order = await getOrder(client, intent.tenant_id, intent.order_id);
      const result = await settleStock(deps.inventory, intent.tenant_id, order.id, order.status, stockLinesOf(order.orderItems)).catch((error) => {
        // Refused (a ready order whose stock has gone meanwhile): no later pass can do better.
        if (!(error instanceof AppError && error.status < 500)) throw error;
        deps.logger.error({ orderId: order.id, status: order.status, code: error.code }, "stock cannot be brought in line with the order; it needs attention");
        return { orderId: order.id, status: order.status, action: "reserve" as const, changed: false };
      });
      await clearStockIntent(client, intent.tenant_id, intent.order_id);
      return result;
    }).catch((error) => {
      // Inventory or the database away: the intent stays for the next pass.
      deps.logger.warn({ err: (error as Error).message, orderId: intent.order_id }, "stock reconciliation failed; will try again");
      return null;
    });
    if (outcome) {
      done.push(outcome);
      if (outcome.changed) deps.logger.warn(outcome, "stock brought back in line with the order after an interrupted status change");
    }
  }
  return done;
}

/** What the order's committed status says its stock must be; each call is a no-op when it already is. */
async function settleStock(
  inventory: StockReconcilerDeps["inventory"],
  tenantId: string,
  orderId: string,
  status: string,
  lines: ReturnType<typeof stockLinesOf>,
): Promise<Reconciliation> {
  switch (status) {
    case "ready":
    case "inProgress":
      return { orderId, status, action: "reserve", changed: (await inventory.reserve(tenantId, orderId, lines)).reserved };
    case "pending":
    case "cancelled":
      return { orderId, status, action: "release", changed: (await inventory.release(tenantId, orderId)).released };
    case "completed":
      return { orderId, status, action: "consume", changed: (await inventory.consume(tenantId, orderId)).consumed };
    default:
      return { orderId, status, action: "none", changed: false };
  }
}

/** Runs a pass every `intervalMs` until stopped; a pass never overlaps the next. */
export function startStockReconciler(deps: StockReconcilerDeps & { intervalMs?: number }): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    running = running.then(() => (stopped ? undefined : reconcileStockIntents(deps).catch(() => undefined)));
  }, deps.intervalMs ?? STOCK_RECONCILE_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
