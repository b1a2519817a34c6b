// Stock adjustments: a counted or corrected on_hand for one (product, location), recorded for
// audit, with its events in the same transaction.
import { newId } from "@waybill/platform/ids.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { FieldError } from "@waybill/platform/errors.js";
import { idempotent, type IdempotencyRequest, type IdempotentResult } from "@waybill/platform/idempotency.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";
import {
  DEFAULT_LOCATION,
  MAX_LOCATION_LENGTH,
  MAX_REASON_LENGTH,
  MAX_STOCK_QUANTITY,
  REASON_TEXT,
  TRIMMED_TEXT,
} from "@waybill/contracts/limits/inventory.js";
import { isProductId, productNotFound } from "./product-ids.js";
import type { InventoryDeps } from "./products.js";
import { lockStockRows, stockLevelOf, writeStockRows, type StockLevel } from "./stock.js";
import { crossingEvents } from "./thresholds.js";

export interface AdjustmentInput {
  productId: string;
  /** Empty or absent means the default location. */
  location?: string;
  /** Exactly one of delta and setTo. */
  delta?: number;
  setTo?: number;
  reason: string;
}

export interface Adjustment extends StockLevel {
  id: string;
  /** What on_hand changed by (computed for setTo). */
  delta: number;
  reason: string;
  createdAt: string;
}

const newAdjustmentId = () => newId("adj");

/** Checks an adjustment's shape (not yet the stock); returns it with its location resolved. */
export function validateAdjustment(input: AdjustmentInput): AdjustmentInput & { location: string } {
  const errors: FieldError[] = [];
  const location = input.location || DEFAULT_LOCATION;
  if (!isLocation(location)) errors.push({ path: "location", message: `1 to ${MAX_LOCATION_LENGTH} characters, no surrounding spaces` });
  if ((input.delta === undefined) === (input.setTo === undefined)) {
    errors.push({ path: "delta", message: "give exactly one of delta and setTo" });
  } else if (input.delta !== undefined && !(Number.isInteger(input.delta) && input.delta !== 0 && Math.abs(input.delta) <= MAX_STOCK_QUANTITY)) {
    errors.push({ path: "delta", message: `a non-zero integer from -${MAX_STOCK_QUANTITY} to ${MAX_STOCK_QUANTITY}` });
  } else if (input.setTo !== undefined && !(Number.isInteger(input.setTo) && input.setTo >= 0 && input.setTo <= MAX_STOCK_QUANTITY)) {
    errors.push({ path: "setTo", message: `an integer from 0 to ${MAX_STOCK_QUANTITY}` });
  }
  if (typeof input.reason !== "string" || input.reason.trim() === "" || input.reason.length > MAX_REASON_LENGTH || !REASON_TEXT.test(input.reason)) {
    errors.push({ path: "reason", message: `1 to ${MAX_REASON_LENGTH} characters, no control characters but line breaks and tabs` });
  }
  if (errors.length > 0) throw appError("validation_failed", "The adjustment is not valid.", { errors });
  return { ...input, location };
}

export function isLocation(value: string): boolean {
  return value.length <= MAX_LOCATION_LENGTH && TRIMMED_TEXT.test(value);
}

/**
 * Applies an adjustment. Refused with 409 insufficient_stock when on_hand would go below zero
 * or below what orders have reserved (that stock is promised; release it first).
 */
export async function adjustStock(
  deps: InventoryDeps,
  tenantId: string,
  input: AdjustmentInput,
  idempotency?: IdempotencyRequest,
): Promise<IdempotentResult<Adjustment>> {
  const adjustment = validateAdjustment(input);
  const { productId, location } = adjustment;
  if (!isProductId(productId)) throw productNotFound(productId);
  return withTransaction(deps.pool, (client) =>
    idempotent(client, tenantId, "inventory.adjust", idempotency, async () => {
      const product = await client.query<{ low_stock_threshold: number | null }>(
        `SELECT low_stock_threshold FROM products WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL`,
        [tenantId, productId],
      );
      if (product.rows.length === 0) throw productNotFound(productId);
      // A location comes into being with its first adjustment.
      await client.query(`INSERT INTO stock_levels (tenant_id, product_id, location) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
        tenantId,
        productId,
        location,
      ]);
      const [row] = await lockStockRows(client, tenantId, [{ productId, location }]);
      const before = stockLevelOf(row);
      const onHand = adjustment.setTo ?? before.onHand + adjustment.delta!;
      if (onHand < 0) {
        throw appError("insufficient_stock", `Product ${productId} has ${before.onHand} on hand at "${location}"; cannot remove ${-adjustment.delta!}.`);
      }
      if (onHand < before.reserved) {
        throw appError(
          "insufficient_stock",
          `Product ${productId} has ${before.reserved} reserved at "${location}"; on hand cannot go below that (asked for ${onHand}).`,
        );
      }
      if (onHand > MAX_STOCK_QUANTITY) {
        throw appError("validation_failed", "The adjustment is not valid.", {
          errors: [{ path: adjustment.setTo === undefined ? "delta" : "setTo", message: `on hand cannot exceed ${MAX_STOCK_QUANTITY}` }],
        });
      }
      const next = { ...row, on_hand: onHand };
      await writeStockRows(client, tenantId, [next]);
      const after = stockLevelOf(next);
      const delta = onHand - before.onHand;
      const id = newAdjustmentId();
      const { rows } = await client.query<{ created_at: Date }>(
        `INSERT INTO stock_adjustments (id, tenant_id, product_id, location, delta, set_to, reason, on_hand)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at`,
        [id, tenantId, productId, location, delta, adjustment.setTo ?? null, adjustment.reason, onHand],
      );
      await appendEvents(client, deps.topology, [
        { tenantId, kind: "inventory.adjusted", payload: { ...after, delta, reason: adjustment.reason } },
        ...crossingEvents(tenantId, before, after, product.rows[0].low_stock_threshold),
      ]);
      return { id, ...after, delta, reason: adjustment.reason, createdAt: rows[0].created_at.toISOString() };
    }),
  );
}
