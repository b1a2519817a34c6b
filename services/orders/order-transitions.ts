// Moving an order along its state machine: the stock effect in inventory (over gRPC, in the
// same operation context so inventory's events share our transaction id), then the guarded
// status update and its events in one transaction. A saga undoes the stock effect when the
// local part fails.
import type { PoolClient } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { AppError } from "@waybill/platform/errors.js";
import { appendEvents, type NewEvent } from "@waybill/contracts/events/outbox-events.js";
import type { OrdersDeps } from "./deps.js";
import { stockLinesOf } from "./inventory-port.js";
import { assertOrderTransition, isOrderStatus, stockEffectOf, type OrderStatus } from "./order-status.js";
import { getOrder, lockOrder, type Order } from "./orders.js";
import { withSagaTransaction, type Saga } from "./saga.js";
import { clearStockIntent } from "./stock-intents.js";

/** POST /orders/{id}/status: one transition, one transaction id for all its events. */
export async function changeOrderStatus(deps: OrdersDeps, tenantId: string, orderId: string, status: string): Promise<Order> {
  if (!isOrderStatus(status)) {
    throw appError("validation_failed", `Unknown order status "${status}".`, { errors: [{ path: "status", message: "not an order status" }] });
  }
  return withSagaTransaction(deps.pool, deps.logger, async (client, saga) => {
    const order = await lockOrder(client, tenantId, orderId);
    await moveOrder(deps, client, saga, tenantId, order, status);
    return getOrder(client, tenantId, orderId);
  });
}

/**
 * Moves `order` (locked by the caller's transaction, `client`) to `to`. Callers: the status
 * endpoint, a ready order's first shipment (→ inProgress), the last delivery (→ completed).
 */
export async function moveOrder(deps: OrdersDeps, client: PoolClient, saga: Saga, tenantId: string, order: Order, to: OrderStatus): Promise<void> {
  assertOrderTransition(order.status, to);
  if (to === "cancelled" && order.status === "inProgress") await assertNothingDelivered(client, tenantId, order.id);
  const lines = stockLinesOf(order.orderItems);
  const effect = stockEffectOf(to);
  // Committed now, on its own connection; this transaction deletes it (stock-intents.ts).
  if (effect !== "none") await deps.stockIntents.mark(tenantId, order.id);
  switch (effect) {
    case "reserve":
      try {
        await deps.inventory.reserve(tenantId, order.id, lines);
      } catch (error) {
        // A refusal (insufficient_stock …) reserved nothing, so nothing is left to reconcile; a
        // lost answer may have reserved.
        if (isRefusal(error)) await deps.stockIntents.clear(tenantId, order.id);
        else saga.onFailure("release stock", () => deps.inventory.release(tenantId, order.id));
        throw error;
      }
      // While we hold the order's lock and it is pending, any reservation of it is ours to undo.
      saga.onFailure("release stock", () => deps.inventory.release(tenantId, order.id));
      break;
    case "release":
      // Re-reserving is a no-op when the release never happened (reservations are per order).
      if (order.status !== "pending") saga.onFailure("reserve stock again", () => deps.inventory.reserve(tenantId, order.id, lines));
      await deps.inventory.release(tenantId, order.id);
      break;
    case "consume":
      // Not undoable; if the commit below fails the order stays inProgress and retrying is safe,
      // because consuming an order whose reservation is already consumed is a no-op.
      await deps.inventory.consume(tenantId, order.id);
      break;
    case "none":
      break;
  }
  // The guard keeps two transitions from both winning even if a caller forgot the lock.
  const { rowCount } = await client.query("UPDATE orders SET status = $4, updated_at = now() WHERE id = $1 AND tenant_id = $2 AND status = $3", [
    order.id,
    tenantId,
    order.status,
    to,
  ]);
  if (rowCount === 0) {
    throw appError("invalid_status_transition", `The order is no longer ${order.status}; it changed meanwhile.`);
  }
  if (effect !== "none") await clearStockIntent(client, tenantId, order.id);
  const events: NewEvent[] = [
    { tenantId, kind: "order.status.changed", payload: { orderId: order.id, previousOrderStatus: order.status, currentOrderStatus: to } },
  ];
  if (to === "cancelled") events.push({ tenantId, kind: "order.cancelled", payload: { orderId: order.id, previousOrderStatus: order.status } });
  if (to === "completed") events.push({ tenantId, kind: "order.completed", payload: { orderId: order.id } });
  await appendEvents(client, deps.topology, events);
}

/**
 * Cancelling releases the order's whole reservation, but delivered goods left the warehouse:
 * releasing them would put stock back that is gone. Inventory settles a reservation as a whole
 * (release or consume), so a partly delivered order is refused rather than half-settled.
 */
async function assertNothingDelivered(client: PoolClient, tenantId: string, orderId: string): Promise<void> {
  // The caller holds the order's lock, which every shipment change takes first.
  const { rowCount } = await client.query("SELECT 1 FROM shipments WHERE tenant_id = $1 AND order_id = $2 AND status = 'delivered' LIMIT 1", [
    tenantId,
    orderId,
  ]);
  if (rowCount !== 0) {
    throw appError("order_partially_delivered", `Order ${orderId} has delivered shipments; it cannot be cancelled. Deliver the rest to complete it.`);
  }
}

function isRefusal(error: unknown): boolean {
  return error instanceof AppError && error.status < 500;
}
