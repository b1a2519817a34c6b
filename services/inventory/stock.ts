// Stock levels per (product, location): reading them, locking them and writing them back.
// Every change that touches several rows locks them in one order, (product_id, location), so
// that concurrent reservations, releases and adjustments never deadlock.
import type { PoolClient, Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { Page } from "@waybill/platform/pagination.js";
import { TRIMMED_TEXT } from "@waybill/contracts/limits/inventory.js";
import { isProductId } from "./product-ids.js";

export interface StockLevel {
  productId: string;
  location: string;
  onHand: number;
  reserved: number;
  available: number;
}

export interface StockRow {
  product_id: string;
  location: string;
  on_hand: number;
  reserved: number;
}

export interface StockFilter {
  productId?: string;
  location?: string;
}

export function stockLevelOf(row: StockRow): StockLevel {
  return {
    productId: row.product_id,
    location: row.location,
    onHand: row.on_hand,
    reserved: row.reserved,
    // The table's CHECK keeps reserved <= on_hand; max() only guards the arithmetic.
    available: Math.max(0, row.on_hand - row.reserved),
  };
}

/**
 * Lists stock levels newest product first, then by location. The cursor is the last
 * (product, location) returned, opaque to clients. Deleted products are left out.
 */
export async function listStockLevels(db: Queryable, tenantId: string, filter: StockFilter, limit: number, cursor?: string | null): Promise<Page<StockLevel>> {
  const after = decodeStockCursor(cursor);
  // Only a product id can match; anything else (even bytes PostgreSQL refuses) matches nothing.
  if (filter.productId !== undefined && !isProductId(filter.productId)) return { data: [], nextCursor: null };
  if (filter.location !== undefined && !TRIMMED_TEXT.test(filter.location)) return { data: [], nextCursor: null };
  const { rows } = await db.query<StockRow>(
    `SELECT s.product_id, s.location, s.on_hand, s.reserved
       FROM stock_levels s JOIN products p ON p.id = s.product_id AND p.tenant_id = s.tenant_id AND p.deleted_at IS NULL
      WHERE s.tenant_id = $1
        AND ($2::text IS NULL OR s.product_id = $2)
        AND ($3::text IS NULL OR s.location = $3)
        AND ($4::text IS NULL OR s.product_id < $4 OR (s.product_id = $4 AND s.location > $5))
      ORDER BY s.product_id DESC, s.location ASC
      LIMIT $6`,
    [tenantId, filter.productId ?? null, filter.location ?? null, after?.productId ?? null, after?.location ?? null, limit + 1],
  );
  const data = rows.slice(0, limit).map(stockLevelOf);
  const last = data[data.length - 1];
  return { data, nextCursor: rows.length > limit ? encodeStockCursor(last) : null };
}

export function encodeStockCursor(level: Pick<StockLevel, "productId" | "location">): string {
  return Buffer.from(JSON.stringify([level.productId, level.location]), "utf8").toString("base64url");
}

export function decodeStockCursor(cursor: string | undefined | null): { productId: string; location: string } | null {
  if (cursor === undefined || cursor === null || cursor === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== "string" ||
    !/^prd_[0-9a-z]{26}$/.test(parsed[0]) ||
    typeof parsed[1] !== "string" ||
    !TRIMMED_TEXT.test(parsed[1])
  ) {
    throw appError("invalid_cursor", "The cursor is not one this API returned.");
  }
  return { productId: parsed[0], location: parsed[1] };
}

/** Locks every stock row of these products in the tenant, in lock order. */
export async function lockStockOfProducts(client: PoolClient, tenantId: string, productIds: string[]): Promise<StockRow[]> {
  const { rows } = await client.query<StockRow>(
    `SELECT product_id, location, on_hand, reserved FROM stock_levels
      WHERE tenant_id = $1 AND product_id = ANY($2::text[])
      ORDER BY product_id, location FOR UPDATE`,
    [tenantId, productIds],
  );
  return rows;
}

/** Locks the given (product, location) rows, in lock order. */
export async function lockStockRows(client: PoolClient, tenantId: string, keys: { productId: string; location: string }[]): Promise<StockRow[]> {
  const { rows } = await client.query<StockRow>(
    `SELECT s.product_id, s.location, s.on_hand, s.reserved FROM stock_levels s
       JOIN unnest($2::text[], $3::text[]) AS k(product_id, location) ON k.product_id = s.product_id AND k.location = s.location
      WHERE s.tenant_id = $1
      ORDER BY s.product_id, s.location FOR UPDATE OF s`,
    [tenantId, keys.map((k) => k.productId), keys.map((k) => k.location)],
  );
  return rows;
}

/** Writes on_hand and reserved of rows the caller has locked. */
export async function writeStockRows(client: PoolClient, tenantId: string, rows: StockRow[]): Promise<void> {
  if (rows.length === 0) return;
  await client.query(
    `UPDATE stock_levels s SET on_hand = v.on_hand, reserved = v.reserved, updated_at = now()
       FROM unnest($2::text[], $3::text[], $4::integer[], $5::integer[]) AS v(product_id, location, on_hand, reserved)
      WHERE s.tenant_id = $1 AND s.product_id = v.product_id AND s.location = v.location`,
    [tenantId, rows.map((r) => r.product_id), rows.map((r) => r.location), rows.map((r) => r.on_hand), rows.map((r) => r.reserved)],
  );
}
