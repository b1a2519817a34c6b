// Products: plain functions over a tenant's rows.
import type { Queryable } from "../platform/db.js";
import { formatStoredAmount } from "../platform/money.js";
import { decodeCursor, toPage, type Page } from "../platform/pagination.js";

export interface Product {
  id: string;
  sku: string;
  name: string;
  price: string | null;
  currency: string | null;
  lowStockThreshold: number | null;
  createdAt: string;
  updatedAt: string;
}

interface ProductRow {
  id: string;
  sku: string;
  name: string;
  price: string | null;
  currency: string | null;
  low_stock_threshold: number | null;
  created_at: Date;
  updated_at: Date;
}

export function productFromRow(row: ProductRow): Product {
  return {
    id: row.id,
    sku: row.sku,
    name: row.name,
    price: row.price === null ? null : formatStoredAmount(row.price, row.currency),
    currency: row.currency,
    lowStockThreshold: row.low_stock_threshold,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}


export async function listProducts(db: Queryable, tenantId: string, limit: number, cursor?: string | null): Promise<Page<Product>> {
  const after = decodeCursor(cursor);
  const { rows } = await db.query<ProductRow>(
    `SELECT * FROM products WHERE tenant_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id < $2)
     ORDER BY id DESC LIMIT $3`,
    [tenantId, after, limit + 1],
  );
  const page = toPage(rows, limit);
  return { data: page.data.map(productFromRow), nextCursor: page.nextCursor };
}
