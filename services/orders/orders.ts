// Orders: creation, reads and field updates, each change with its event in one transaction,
// scoped to one tenant. Status moves live in order-transitions.ts.
import { isoTimestampSql, type Queryable } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { AppError, FieldError } from "@waybill/platform/errors.js";
import { idempotent, type IdempotencyRequest, type IdempotentResult } from "@waybill/platform/idempotency.js";
import { newId } from "@waybill/platform/ids.js";
import { currencyScale, formatMinorUnits, formatStoredAmount, isCurrency, toMinorUnits } from "@waybill/platform/money.js";
import { appendEvents, outboxRecords } from "@waybill/contracts/events/outbox-events.js";
import { preparedStatement } from "@waybill/platform/prepared.js";
import { decodeCursor, encodeCursor } from "@waybill/platform/pagination.js";
import { fitsAmountColumn, maxAmountText } from "./amounts.js";
import { assertCustomerExists, customerNotFound } from "./customers.js";
import type { OrdersDeps } from "./deps.js";
import { insertOrders, type OrderInsert, type OrderInsertOutcome } from "./order-insert.js";
import { listOrdersJsonQuery } from "./order-listing.js";
import { isEditable, isOrderStatus, type OrderStatus } from "./order-status.js";

export type { OrderStatus } from "./order-status.js";

export interface OrderItem {
  productId: string;
  quantity: number;
  price: string;
}

export interface Order {
  id: string;
  shortId: string;
  customerId: string;
  dueDate: string | null;
  currency: string;
  status: OrderStatus;
  orderItems: OrderItem[];
  total: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewOrder {
  shortId: string;
  customerId: string;
  dueDate: string | null;
  currency: string;
  orderItems: { productId: string; quantity: number; price: string | number }[];
}

/** Fields absent keep their value; dueDate null clears it. */
export interface OrderPatch {
  dueDate?: string | null;
  customerId?: string;
}

export interface OrderFilter {
  status?: string;
  customerId?: string;
  limit: number;
  cursor?: string | null;
}

/** ISO 8601 UTC of a date or date-time given by a client; a bare date is midnight UTC. */
function toInstant(value: string, path: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw appError("validation_failed", `${path} is not a valid date`, { errors: [{ path, message: "not a valid date" }] });
  return date.toISOString();
}

/** The order fields every order.* snapshot event carries. */
export function orderSnapshot(order: Order) {
  return {
    orderId: order.id,
    shortId: order.shortId,
    customerId: order.customerId,
    dueDate: order.dueDate,
    currency: order.currency,
    status: order.status,
    orderItems: order.orderItems,
    total: order.total,
  };
}

/** 422 unknown_product: one field error per line that names a product the tenant does not have. */
export function unknownProducts(items: readonly { productId: string }[], missing: readonly string[]): AppError {
  const unknown = new Set(missing);
  const errors: FieldError[] = items.flatMap((item, index) =>
    unknown.has(item.productId) ? [{ path: `orderItems.${index}.productId`, message: `no product ${item.productId} in this tenant` }] : [],
  );
  return appError("unknown_product", `No product ${missing.join(", ")} in this tenant; create it first (POST /v1/products).`, { errors });
}

export async function createOrder(
  deps: Pick<OrdersDeps, "pool" | "topology" | "inventory" | "orderWriter">,
  tenantId: string,
  input: NewOrder,
  idempotency?: IdempotencyRequest,
): Promise<IdempotentResult<Order>> {
  if (!isCurrency(input.currency)) {
    throw appError("validation_failed", "currency is not an ISO 4217 code", { errors: [{ path: "currency", message: "unknown currency code" }] });
  }
  if (input.orderItems.length === 0) {
    throw appError("validation_failed", "an order needs at least one item", { errors: [{ path: "orderItems", message: "must not be empty" }] });
  }
  const scale = currencyScale(input.currency);
  let totalUnits = 0n;
  const lineUnits: bigint[] = [];
  const items: OrderItem[] = input.orderItems.map((item, index) => {
    // The table's CHECK would refuse these too, but as a 500.
    if (!(Number.isInteger(item.quantity) && item.quantity > 0)) {
      throw appError("validation_failed", "quantities are positive integers", {
        errors: [{ path: `orderItems.${index}.quantity`, message: "must be a positive integer" }],
      });
    }
    const units = toMinorUnits(item.price, scale, `orderItems.${index}.price`);
    if (units < 0n)
      throw appError("validation_failed", "prices cannot be negative", { errors: [{ path: `orderItems.${index}.price`, message: "must be zero or more" }] });
    lineUnits.push(units * BigInt(item.quantity));
    totalUnits += lineUnits[index];
    return { productId: item.productId, quantity: item.quantity, price: formatMinorUnits(units, scale) };
  });
  // Lines are never negative, so a line can only be too large when the total is.
  if (!fitsAmountColumn(totalUnits, scale)) {
    const tooLarge: FieldError[] = lineUnits.flatMap((units, index) =>
      fitsAmountColumn(units, scale) ? [] : [{ path: `orderItems.${index}`, message: `price × quantity exceeds ${maxAmountText(scale)}` }],
    );
    tooLarge.push({ path: "total", message: `the order's total exceeds ${maxAmountText(scale)}` });
    throw appError(
      "amount_out_of_range",
      `The order's total is larger than the largest amount an order can hold (${maxAmountText(scale)} ${input.currency}).`,
      { errors: tooLarge },
    );
  }
  const id = newId("ord");
  const total = formatMinorUnits(totalUnits, scale);
  // Stored as the instant we answer with, whatever the database session's time zone.
  const dueDate = input.dueDate ? toInstant(input.dueDate, "dueDate") : null;

  const order: Order = {
    id,
    shortId: input.shortId,
    customerId: input.customerId,
    dueDate,
    currency: input.currency,
    status: "pending",
    orderItems: items,
    total,
    createdAt: "",
    updatedAt: "",
  };

  const checkProducts = async () => {
    // An order for a product that does not exist could never reserve stock, so never become ready.
    const missing = await deps.inventory.missingProducts(
      tenantId,
      items.map((item) => item.productId),
    );
    if (missing.length > 0) throw unknownProducts(items, missing);
  };
  const created = (outcome: OrderInsertOutcome): Order => {
    if (outcome === "unknown_customer") throw customerNotFound(input.customerId);
    if (outcome === "duplicate_short_id") throw appError("duplicate_short_id", `An order with shortId "${input.shortId}" already exists.`);
    return { ...order, ...outcome };
  };
  const { records } = outboxRecords(deps.topology, [{ tenantId, kind: "order.created", payload: orderSnapshot(order) }]);
  const row: OrderInsert = { id, tenantId, shortId: input.shortId, customerId: input.customerId, dueDate, currency: input.currency, total, items, records };

  // Every order is written by the one statement of order-insert.ts (insertOrders). Without an
  // Idempotency-Key it goes in the group commit: one statement on the pool, shared with the orders
  // that arrive at the same time, committed when it resolves. With a key it is a batch of one in a
  // transaction of its own, because the key's advisory lock, the look-up of an earlier answer and
  // the stored answer must commit or roll back with this order alone: in a shared autocommit
  // statement, a replay or a key in flight (409) would have to be decided inside SQL for each
  // order, and one order's key could not be stored with the answer that statement produces.
  if (!idempotency) {
    await checkProducts();
    return { value: created(await deps.orderWriter.insert(row)), replayed: false };
  }
  return withTransaction(deps.pool, (client) =>
    idempotent(client, tenantId, "orders.create", idempotency, async () => {
      // Inside, so a replay answers as the first request did even if a product went since.
      await checkProducts();
      const [outcome] = await insertOrders(client, [row]);
      return created(outcome);
    }),
  );
}

interface OrderRow {
  id: string;
  short_id: string;
  customer_id: string;
  /** ISO 8601 UTC text, as the API shows it (see isoTimestampSql). */
  due_date: string | null;
  currency: string;
  status: OrderStatus;
  total: string;
  created_at: string;
  updated_at: string;
  /** [productId, quantity, price] per line, in line order. */
  items: [string, number, string][];
}

// Read as the API shows them: timestamps as ISO text and lines as a compact `json` array, so a
// page of 100 orders costs no Date parsing and formatting, nor jsonb objects built and parsed,
// per row (together about half of listing's CPU in the orders process, bench:scale).
const ORDER_COLUMNS = `o.id, o.short_id, o.customer_id, ${isoTimestampSql("o.due_date")} AS due_date, o.currency, o.status, o.total,
    ${isoTimestampSql("o.created_at")} AS created_at, ${isoTimestampSql("o.updated_at")} AS updated_at,
    COALESCE((SELECT json_agg(json_build_array(i.product_id, i.quantity, i.price::text) ORDER BY i.line_no)
       FROM order_items i WHERE i.order_id = o.id), '[]'::json) AS items`;

const GET_ORDER = preparedStatement("orders_get_order", `SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.tenant_id = $1 AND o.id = $2`);
const LOCK_ORDER = preparedStatement("orders_lock_order", `SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.tenant_id = $1 AND o.id = $2 FOR UPDATE OF o`);
export async function getOrder(db: Queryable, tenantId: string, id: string): Promise<Order> {
  const { rows } = await db.query<OrderRow>(GET_ORDER([tenantId, id]));
  if (rows.length === 0) throw appError("order_not_found", `No order ${id}.`);
  return orderFromRow(rows[0]);
}

/**
 * Reads an order and locks its row until the caller's transaction ends. Every change of an
 * order or its shipments takes this lock first, so they happen one at a time per order and
 * always lock in the same order (order, then shipment).
 */
export async function lockOrder(db: Queryable, tenantId: string, id: string): Promise<Order> {
  const { rows } = await db.query<OrderRow>(LOCK_ORDER([tenantId, id]));
  if (rows.length === 0) throw appError("order_not_found", `No order ${id}.`);
  return orderFromRow(rows[0]);
}

/** A page of orders, newest first, as the JSON array the HTTP API answers (order-listing.ts). */
export async function listOrdersJson(db: Queryable, tenantId: string, filter: OrderFilter): Promise<{ dataJson: string; nextCursor: string | null }> {
  if (filter.status !== undefined && !isOrderStatus(filter.status)) {
    throw appError("invalid_query", `Unknown order status "${filter.status}".`);
  }
  const after = decodeCursor(filter.cursor);
  const { rows } = await db.query<{ data: string; last_id: string | null; more: boolean }>(listOrdersJsonQuery(tenantId, filter, after));
  const { data, last_id: lastId, more } = rows[0];
  return { dataJson: data, nextCursor: more && lastId ? encodeCursor(lastId) : null };
}

export async function updateOrder(deps: Pick<OrdersDeps, "pool" | "topology">, tenantId: string, id: string, patch: OrderPatch): Promise<Order> {
  const dueDate = patch.dueDate === undefined || patch.dueDate === null ? patch.dueDate : toInstant(patch.dueDate, "dueDate");
  return withTransaction(deps.pool, async (client) => {
    const current = await lockOrder(client, tenantId, id);
    if (!isEditable(current.status)) {
      throw appError("order_not_editable", `A ${current.status} order cannot be changed.`);
    }
    const changedFields: string[] = [];
    if (dueDate !== undefined && dueDate !== current.dueDate) changedFields.push("dueDate");
    if (patch.customerId !== undefined && patch.customerId !== current.customerId) {
      await assertCustomerExists(client, tenantId, patch.customerId);
      changedFields.push("customerId");
    }
    // An update that changes nothing is not an event.
    if (changedFields.length === 0) return current;
    await client.query(`UPDATE orders SET due_date = $3, customer_id = $4, updated_at = now() WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
      dueDate === undefined ? current.dueDate : dueDate,
      patch.customerId ?? current.customerId,
    ]);
    const order = await getOrder(client, tenantId, id);
    await appendEvents(client, deps.topology, [{ tenantId, kind: "order.updated", payload: { ...orderSnapshot(order), changedFields } }]);
    return order;
  });
}

function orderFromRow(row: OrderRow): Order {
  const money = (stored: string) => formatStoredAmount(stored, row.currency);
  return {
    id: row.id,
    shortId: row.short_id,
    customerId: row.customer_id,
    dueDate: row.due_date,
    currency: row.currency,
    status: row.status,
    orderItems: row.items.map(([productId, quantity, price]) => ({ productId, quantity, price: money(price) })),
    total: money(row.total),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
