// Products: the catalog of a tenant. Every change writes its event in the same transaction;
// deletes are soft so that stock and reservations keep their references.
import { UNIQUE_VIOLATION, type Pool, type PoolClient, type Queryable } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError, FieldError } from "@waybill/platform/errors.js";
import { idempotent, type IdempotencyRequest, type IdempotentResult } from "@waybill/platform/idempotency.js";
import { newId } from "@waybill/platform/ids.js";
import { formatStoredAmount, isCurrency, normalizeAmount } from "@waybill/platform/money.js";
import type { Topology } from "@waybill/platform/nats.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import { DEFAULT_LOCATION, MAX_PRODUCT_NAME_LENGTH, MAX_SKU_LENGTH, MAX_STOCK_QUANTITY, TRIMMED_TEXT } from "@waybill/contracts/limits/inventory.js";
import { isProductId, productNotFound } from "./product-ids.js";
import { lockStockOfProducts, stockLevelOf } from "./stock.js";
import { thresholdChangeEvents } from "./thresholds.js";

export interface InventoryDeps {
  pool: Pool;
  topology: Topology;
}

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

/** The fields a client sets; `null` clears an optional one. */
export interface ProductFields {
  sku: string;
  name: string;
  price: string | number | null;
  currency: string | null;
  lowStockThreshold: number | null;
}

export type ProductChanges = Partial<ProductFields>;

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

const EDITABLE_FIELDS = ["sku", "name", "price", "currency", "lowStockThreshold"] as const;

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

/**
 * Checks a product's complete set of fields and normalises the price to its currency's scale.
 * Price and currency go together: a price means nothing without its currency.
 */
export function normalizeProductFields(fields: ProductFields): ProductFields & { price: string | null } {
  const errors: FieldError[] = [];
  if (!isText(fields.sku, MAX_SKU_LENGTH)) errors.push({ path: "sku", message: `1 to ${MAX_SKU_LENGTH} characters, no surrounding spaces` });
  if (!isText(fields.name, MAX_PRODUCT_NAME_LENGTH))
    errors.push({ path: "name", message: `1 to ${MAX_PRODUCT_NAME_LENGTH} characters, no surrounding spaces` });
  if (fields.currency !== null && !isCurrency(fields.currency)) errors.push({ path: "currency", message: "unknown ISO 4217 currency code" });
  if (fields.price !== null && fields.currency === null) errors.push({ path: "currency", message: "required when price is set" });
  if (fields.price === null && fields.currency !== null) errors.push({ path: "price", message: "required when currency is set" });
  const threshold = fields.lowStockThreshold;
  if (threshold !== null && !(Number.isInteger(threshold) && threshold >= 0 && threshold <= MAX_STOCK_QUANTITY)) {
    errors.push({ path: "lowStockThreshold", message: `an integer from 0 to ${MAX_STOCK_QUANTITY}` });
  }
  if (errors.length > 0) throw appError("validation_failed", "The product is not valid.", { errors });

  let price: string | null = null;
  if (fields.price !== null) {
    price = normalizeAmount(fields.price, fields.currency!, "price");
    if (price.startsWith("-"))
      throw appError("validation_failed", "price cannot be negative", { errors: [{ path: "price", message: "must be zero or more" }] });
  }
  return { ...fields, price };
}

function isText(value: unknown, maxLength: number): value is string {
  return typeof value === "string" && value.length <= maxLength && TRIMMED_TEXT.test(value);
}

export async function createProduct(
  deps: InventoryDeps,
  tenantId: string,
  input: ProductFields,
  idempotency?: IdempotencyRequest,
): Promise<IdempotentResult<Product>> {
  const fields = normalizeProductFields(input);
  const id = newId("prd");
  return withTransaction(deps.pool, (client) =>
    idempotent(client, tenantId, "products.create", idempotency, async () => {
      const { rows } = await client
        .query<ProductRow>(
          `INSERT INTO products (id, tenant_id, sku, name, price, currency, low_stock_threshold)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
          [id, tenantId, fields.sku, fields.name, fields.price, fields.currency, fields.lowStockThreshold],
        )
        .catch(duplicateSku(fields.sku));
      // Every product has its default location from the start, so GET /inventory shows it at 0.
      await client.query(`INSERT INTO stock_levels (tenant_id, product_id, location) VALUES ($1, $2, $3)`, [tenantId, id, DEFAULT_LOCATION]);
      const product = productFromRow(rows[0]);
      await appendEvents(client, deps.topology, [{ tenantId, kind: "product.created", payload: snapshot(product) }]);
      return product;
    }),
  );
}

/** The ids among `ids` that name no live product of the tenant, in the order given, once each. */
export async function missingProducts(db: Queryable, tenantId: string, ids: readonly string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM products WHERE tenant_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL`, [
    tenantId,
    unique,
  ]);
  const found = new Set(rows.map((row) => row.id));
  return unique.filter((id) => !found.has(id));
}

export async function getProduct(db: Queryable, tenantId: string, id: string): Promise<Product> {
  if (!isProductId(id)) throw productNotFound(id);
  const { rows } = await db.query<ProductRow>(`SELECT * FROM products WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL`, [tenantId, id]);
  if (rows.length === 0) throw productNotFound(id);
  return productFromRow(rows[0]);
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

/**
 * Applies the fields present in `changes`; emits product.updated only when something changed,
 * and inventory.low for each location a raised lowStockThreshold now sits above.
 */
export async function updateProduct(deps: InventoryDeps, tenantId: string, id: string, changes: ProductChanges): Promise<Product> {
  if (!isProductId(id)) throw productNotFound(id);
  return withTransaction(deps.pool, async (client) => {
    const current = productFromRow(await lockProduct(client, tenantId, id));
    const merged: ProductFields = {
      sku: changes.sku ?? current.sku,
      name: changes.name ?? current.name,
      price: changes.price !== undefined ? changes.price : current.price,
      currency: changes.currency !== undefined ? changes.currency : current.currency,
      lowStockThreshold: changes.lowStockThreshold !== undefined ? changes.lowStockThreshold : current.lowStockThreshold,
    };
    // A new currency re-checks the kept price at its scale (12.50 EUR cannot become JPY as is).
    const next = normalizeProductFields(merged);
    const changedFields = EDITABLE_FIELDS.filter((field) => next[field] !== current[field]);
    if (changedFields.length === 0) return current;

    const { rows } = await client
      .query<ProductRow>(
        `UPDATE products SET sku = $3, name = $4, price = $5, currency = $6, low_stock_threshold = $7, updated_at = now()
          WHERE tenant_id = $1 AND id = $2 RETURNING *`,
        [tenantId, id, next.sku, next.name, next.price, next.currency, next.lowStockThreshold],
      )
      .catch(duplicateSku(next.sku));
    const product = productFromRow(rows[0]);
    await appendEvents(client, deps.topology, [
      { tenantId, kind: "product.updated", payload: { ...snapshot(product), changedFields: [...changedFields] } },
      ...(next.lowStockThreshold !== current.lowStockThreshold
        ? thresholdChangeEvents(
            tenantId,
            (await lockStockOfProducts(client, tenantId, [id])).map(stockLevelOf),
            current.lowStockThreshold,
            next.lowStockThreshold,
          )
        : []),
    ]);
    return product;
  });
}

/**
 * Soft-deletes a product. Refused with 409 product_reserved while open orders hold its stock:
 * they were promised goods the catalog would no longer list.
 */
export async function deleteProduct(deps: InventoryDeps, tenantId: string, id: string): Promise<void> {
  if (!isProductId(id)) throw productNotFound(id);
  await withTransaction(deps.pool, async (client) => {
    const { sku } = await lockProduct(client, tenantId, id);
    // Holding its stock rows keeps a reservation from slipping in between this check and the
    // delete: reserveStock reads the catalog only after taking them.
    const stock = await lockStockOfProducts(client, tenantId, [id]);
    if (stock.some((row) => row.reserved > 0)) throw await productReserved(client, tenantId, id);
    await client.query(`UPDATE products SET deleted_at = now(), updated_at = now() WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    await appendEvents(client, deps.topology, [{ tenantId, kind: "product.deleted", payload: { productId: id, sku } }]);
  });
}

/** The conflict, naming a few of the orders that hold the product so the caller can act on them. */
async function productReserved(client: PoolClient, tenantId: string, id: string): Promise<AppError> {
  const { rows } = await client.query<{ order_id: string }>(
    `SELECT DISTINCT l.order_id FROM reservation_lines l
       JOIN reservations r ON r.tenant_id = l.tenant_id AND r.order_id = l.order_id AND r.status = 'held'
      WHERE l.tenant_id = $1 AND l.product_id = $2 ORDER BY l.order_id LIMIT 6`,
    [tenantId, id],
  );
  const named =
    rows
      .slice(0, 5)
      .map((r) => r.order_id)
      .join(", ") + (rows.length > 5 ? ", …" : "");
  return appError("product_reserved", `Product ${id} has stock reserved by open orders (${named}); cancel or complete them before deleting it.`);
}

async function lockProduct(client: PoolClient, tenantId: string, id: string): Promise<ProductRow> {
  const { rows } = await client.query<ProductRow>(`SELECT * FROM products WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`, [tenantId, id]);
  if (rows.length === 0) throw productNotFound(id);
  return rows[0];
}

function duplicateSku(sku: string) {
  return (error: { code?: string }): never => {
    if (error.code === UNIQUE_VIOLATION) throw appError("duplicate_sku", `A product with sku "${sku}" already exists.`);
    throw error;
  };
}

function snapshot(product: Product) {
  return {
    productId: product.id,
    sku: product.sku,
    name: product.name,
    price: product.price,
    currency: product.currency,
    lowStockThreshold: product.lowStockThreshold,
  };
}
