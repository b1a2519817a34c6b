// Reservations: an order's stock is held when it becomes ready, given back when it is cancelled
// and shipped when it is completed. What was taken from each location is recorded, so release
// and consume return exactly that. Events share the caller's transaction id (gRPC metadata).
import { withTransaction } from "@waybill/platform/transactions.js";
import type { PoolClient } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError, FieldError } from "@waybill/platform/errors.js";
import { appendEvents, type NewEvent } from "@waybill/contracts/events/outbox-events.js";
import { allocate, type Shortage } from "./allocation.js";
import { MAX_STOCK_QUANTITY } from "@waybill/contracts/limits/inventory.js";
import { isProductId } from "./product-ids.js";
import type { InventoryDeps } from "./products.js";
import { lockStockOfProducts, lockStockRows, stockLevelOf, writeStockRows, type StockRow } from "./stock.js";
import { crossingEvents } from "./thresholds.js";

export interface ReservationLine {
  productId: string;
  quantity: number;
}

type Settlement = "released" | "consumed";

const ORDER_ID = /^[\x21-\x7e]{1,100}$/;

/** Sums the lines per product, after checking them. */
export function demandOf(orderId: string, lines: ReservationLine[]): Map<string, number> {
  const errors: FieldError[] = [];
  if (!ORDER_ID.test(orderId)) errors.push({ path: "orderId", message: "1 to 100 visible ASCII characters" });
  if (lines.length === 0) errors.push({ path: "lines", message: "at least one line" });
  const demand = new Map<string, number>();
  lines.forEach((line, index) => {
    if (!line.productId) errors.push({ path: `lines.${index}.productId`, message: "required" });
    if (!(Number.isInteger(line.quantity) && line.quantity > 0 && line.quantity <= MAX_STOCK_QUANTITY)) {
      errors.push({ path: `lines.${index}.quantity`, message: `an integer from 1 to ${MAX_STOCK_QUANTITY}` });
    }
    demand.set(line.productId, (demand.get(line.productId) ?? 0) + line.quantity);
  });
  if ([...demand.values()].some((quantity) => quantity > MAX_STOCK_QUANTITY)) {
    errors.push({ path: "lines", message: `at most ${MAX_STOCK_QUANTITY} of one product` });
  }
  if (errors.length > 0) throw appError("validation_failed", "The reservation is not valid.", { errors });
  return demand;
}

/**
 * Reserves every line or nothing. Returns false, changing nothing, when the order holds a
 * reservation already (a retried call never takes twice) or has consumed one. A released
 * reservation can be taken anew: orders releases to undo a reservation whose order did not
 * commit, and the order may move to ready again later.
 */
export async function reserveStock(deps: InventoryDeps, tenantId: string, orderId: string, lines: ReservationLine[]): Promise<boolean> {
  const demand = demandOf(orderId, lines);
  return withTransaction(deps.pool, async (client) => {
    // The primary key makes a concurrent reservation of the same order wait for this one.
    const claimed = await client.query(
      `INSERT INTO reservations (tenant_id, order_id, status) VALUES ($1, $2, 'held')
       ON CONFLICT (tenant_id, order_id) DO UPDATE SET status = 'held', created_at = now(), updated_at = now()
        WHERE reservations.status = 'released'`,
      [tenantId, orderId],
    );
    if (claimed.rowCount === 0) return false;
    // What an earlier, released reservation took is history now.
    await client.query(`DELETE FROM reservation_lines WHERE tenant_id = $1 AND order_id = $2`, [tenantId, orderId]);

    // Something that is not a product id is simply not in the catalog.
    const productIds = [...demand.keys()].filter(isProductId).sort();
    const rows = await lockStockOfProducts(client, tenantId, productIds);
    // Read after the stock locks: a delete of one of these products (which takes them too) has
    // committed by now, so a product is either reserved here or deleted, never both.
    const thresholds = await thresholdsOf(client, tenantId, productIds, { includeDeleted: false });
    // A deleted or unknown product has nothing to offer.
    const offered = rows.filter((r) => thresholds.has(r.product_id)).map(stockLevelOf);
    const result = allocate(demand, offered);
    if (!result.ok) throw insufficientStock(orderId, result.shortages, thresholds);

    const byKey = new Map(rows.map((r) => [keyOf(r.product_id, r.location), r]));
    const events: NewEvent[] = [];
    const changed: StockRow[] = [];
    for (const { productId, location, quantity } of result.allocations) {
      const row = byKey.get(keyOf(productId, location))!;
      const next = { ...row, reserved: row.reserved + quantity };
      changed.push(next);
      const after = stockLevelOf(next);
      events.push(
        { tenantId, kind: "inventory.reserved", payload: { ...after, orderId, quantity } },
        ...crossingEvents(tenantId, stockLevelOf(row), after, thresholds.get(productId) ?? null),
      );
    }
    await writeStockRows(client, tenantId, changed);
    await client.query(
      `INSERT INTO reservation_lines (tenant_id, order_id, product_id, location, quantity)
       SELECT $1, $2, a.product_id, a.location, a.quantity FROM unnest($3::text[], $4::text[], $5::integer[]) AS a(product_id, location, quantity)`,
      [tenantId, orderId, result.allocations.map((a) => a.productId), result.allocations.map((a) => a.location), result.allocations.map((a) => a.quantity)],
    );
    await appendEvents(client, deps.topology, events);
    return true;
  });
}

/** Gives back what the order holds (order cancelled). False when it holds nothing. */
export function releaseStock(deps: InventoryDeps, tenantId: string, orderId: string): Promise<boolean> {
  return settle(deps, tenantId, orderId, "released");
}

/** Ships what the order holds (order completed): on_hand and reserved both go down. */
export function consumeStock(deps: InventoryDeps, tenantId: string, orderId: string): Promise<boolean> {
  return settle(deps, tenantId, orderId, "consumed");
}

async function settle(deps: InventoryDeps, tenantId: string, orderId: string, outcome: Settlement): Promise<boolean> {
  if (!ORDER_ID.test(orderId))
    throw appError("validation_failed", "The reservation is not valid.", { errors: [{ path: "orderId", message: "1 to 100 visible ASCII characters" }] });
  return withTransaction(deps.pool, async (client) => {
    // Moving the reservation out of 'held' first makes a concurrent release or consume of the
    // same order wait here, then find nothing to do.
    const settled = await client.query(`UPDATE reservations SET status = $3, updated_at = now() WHERE tenant_id = $1 AND order_id = $2 AND status = 'held'`, [
      tenantId,
      orderId,
      outcome,
    ]);
    if (settled.rowCount === 0) return false;

    const { rows: lines } = await client.query<{ product_id: string; location: string; quantity: number }>(
      `SELECT product_id, location, quantity FROM reservation_lines WHERE tenant_id = $1 AND order_id = $2`,
      [tenantId, orderId],
    );
    const rows = await lockStockRows(
      client,
      tenantId,
      lines.map((l) => ({ productId: l.product_id, location: l.location })),
    );
    const byKey = new Map(rows.map((r) => [keyOf(r.product_id, r.location), r]));
    // Stock of a product deleted since still goes back where it came from.
    const thresholds = await thresholdsOf(client, tenantId, [...new Set(lines.map((l) => l.product_id))], { includeDeleted: true });
    const kind = outcome === "released" ? "inventory.released" : "inventory.consumed";
    const events: NewEvent[] = [];
    const changed: StockRow[] = [];
    for (const line of lines) {
      const row = byKey.get(keyOf(line.product_id, line.location));
      if (!row) throw new Error(`stock row ${line.product_id}@${line.location} of reservation ${orderId} is missing`);
      const next = {
        ...row,
        reserved: row.reserved - line.quantity,
        on_hand: outcome === "consumed" ? row.on_hand - line.quantity : row.on_hand,
      };
      changed.push(next);
      const after = stockLevelOf(next);
      events.push(
        { tenantId, kind, payload: { ...after, orderId, quantity: line.quantity } },
        ...crossingEvents(tenantId, stockLevelOf(row), after, thresholds.get(line.product_id) ?? null),
      );
    }
    await writeStockRows(client, tenantId, changed);
    await appendEvents(client, deps.topology, events);
    return true;
  });
}

/** low_stock_threshold per product id; products missing from the map do not exist (or are deleted). */
async function thresholdsOf(
  client: PoolClient,
  tenantId: string,
  productIds: string[],
  options: { includeDeleted: boolean },
): Promise<Map<string, number | null>> {
  const { rows } = await client.query<{ id: string; low_stock_threshold: number | null }>(
    `SELECT id, low_stock_threshold FROM products WHERE tenant_id = $1 AND id = ANY($2::text[]) AND ($3 OR deleted_at IS NULL)`,
    [tenantId, productIds, options.includeDeleted],
  );
  return new Map(rows.map((r) => [r.id, r.low_stock_threshold]));
}

function insufficientStock(orderId: string, shortages: Shortage[], known: Map<string, number | null>): AppError {
  const parts = shortages.map((s) =>
    known.has(s.productId) ? `${s.productId} (${s.requested} requested, ${s.available} available)` : `${s.productId} (not in the catalog)`,
  );
  return appError("insufficient_stock", `Not enough stock for order ${orderId}: ${parts.join("; ")}.`);
}

function keyOf(productId: string, location: string): string {
  return `${productId}\u0000${location}`;
}
