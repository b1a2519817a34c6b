// Orders: creation (state + its event in one transaction) and reads, scoped to one tenant.
import { withTransaction, type Pool, type Queryable } from "../platform/db.js";
import { ConflictError, NotFoundError, ValidationError } from "../platform/errors.js";
import { newId } from "../platform/ids.js";
import { currencyScale, formatMinorUnits, formatStoredAmount, isCurrency, toMinorUnits } from "../platform/money.js";
import type { Topology } from "../platform/nats.js";
import { appendEvents } from "../platform/outbox.js";
import { idempotent, type IdempotencyRequest, type IdempotentResult } from "../platform/idempotency.js";

export type OrderStatus = "pending" | "ready" | "inProgress" | "completed" | "cancelled";

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

export interface OrdersDeps {
  pool: Pool;
  topology: Topology;
}

const UNIQUE_VIOLATION = "23505";

export async function createOrder(deps: OrdersDeps, tenantId: string, input: NewOrder, idempotency?: IdempotencyRequest): Promise<IdempotentResult<Order>> {
  if (!isCurrency(input.currency)) {
    throw new ValidationError("currency is not an ISO 4217 code", [{ path: "currency", message: "unknown currency code" }]);
  }
  if (input.orderItems.length === 0) {
    throw new ValidationError("an order needs at least one item", [{ path: "orderItems", message: "must not be empty" }]);
  }
  const scale = currencyScale(input.currency);
  let totalUnits = 0n;
  const items: OrderItem[] = input.orderItems.map((item, index) => {
    const units = toMinorUnits(item.price, scale, `orderItems.${index}.price`);
    if (units < 0n) throw new ValidationError("prices cannot be negative", [{ path: `orderItems.${index}.price`, message: "must be zero or more" }]);
    totalUnits += units * BigInt(item.quantity);
    return { productId: item.productId, quantity: item.quantity, price: formatMinorUnits(units, scale) };
  });
  const id = newId("ord");
  const total = formatMinorUnits(totalUnits, scale);

  return withTransaction(deps.pool, (client) => idempotent(client, tenantId, "orders.create", idempotency, async () => {
    const inserted = await client
      .query<{ created_at: Date; updated_at: Date }>(
        `INSERT INTO orders (id, tenant_id, short_id, customer_id, due_date, currency, status, total)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7) RETURNING created_at, updated_at`,
        [id, tenantId, input.shortId, input.customerId, input.dueDate, input.currency, total],
      )
      .catch((error: { code?: string }) => {
        if (error.code === UNIQUE_VIOLATION) {
          throw new ConflictError("duplicate_short_id", `An order with shortId "${input.shortId}" already exists.`);
        }
        throw error;
      });
    await client.query(
      `INSERT INTO order_items (order_id, line_no, tenant_id, product_id, quantity, price)
       SELECT $1, i.line_no, $2, i.product_id, i.quantity, i.price
         FROM unnest($3::text[], $4::integer[], $5::numeric[]) WITH ORDINALITY AS i(product_id, quantity, price, line_no)`,
      [id, tenantId, items.map((i) => i.productId), items.map((i) => i.quantity), items.map((i) => i.price)],
    );
    const order: Order = {
      id,
      shortId: input.shortId,
      customerId: input.customerId,
      dueDate: input.dueDate ? new Date(input.dueDate).toISOString() : null,
      currency: input.currency,
      status: "pending",
      orderItems: items,
      total,
      createdAt: inserted.rows[0].created_at.toISOString(),
      updatedAt: inserted.rows[0].updated_at.toISOString(),
    };
    await appendEvents(client, deps.topology, [
      {
        tenantId,
        kind: "order.created",
        payload: {
          orderId: order.id,
          shortId: order.shortId,
          customerId: order.customerId,
          dueDate: order.dueDate,
          currency: order.currency,
          status: order.status,
          orderItems: order.orderItems,
          total: order.total,
        },
      },
    ]);
    return order;
  }));
}

interface OrderRow {
  id: string;
  short_id: string;
  customer_id: string;
  due_date: Date | null;
  currency: string;
  status: OrderStatus;
  total: string;
  created_at: Date;
  updated_at: Date;
  items: { productId: string; quantity: number; price: string }[];
}

export async function getOrder(db: Queryable, tenantId: string, id: string): Promise<Order> {
  const { rows } = await db.query<OrderRow>(
    `SELECT o.*, COALESCE(
        (SELECT jsonb_agg(jsonb_build_object('productId', i.product_id, 'quantity', i.quantity, 'price', i.price::text) ORDER BY i.line_no)
           FROM order_items i WHERE i.order_id = o.id), '[]'::jsonb) AS items
       FROM orders o WHERE o.tenant_id = $1 AND o.id = $2`,
    [tenantId, id],
  );
  if (rows.length === 0) throw new NotFoundError("order_not_found", `No order ${id}.`);
  return orderFromRow(rows[0]);
}

function orderFromRow(row: OrderRow): Order {
  const money = (stored: string) => formatStoredAmount(stored, row.currency);
  return {
    id: row.id,
    shortId: row.short_id,
    customerId: row.customer_id,
    dueDate: row.due_date ? row.due_date.toISOString() : null,
    currency: row.currency,
    status: row.status,
    orderItems: row.items.map((i) => ({ productId: i.productId, quantity: i.quantity, price: money(i.price) })),
    total: money(row.total),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
