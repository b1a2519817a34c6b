// Shipments of an order: creation, reads and status changes with their timeline. A status
// change is one plain function, `applyShipmentStatus`, that HTTP and device messages share.
import { UNIQUE_VIOLATION, type PoolClient, type Queryable } from "@waybill/platform/db.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { idempotent, type IdempotencyRequest, type IdempotentResult } from "@waybill/platform/idempotency.js";
import { newId } from "@waybill/platform/ids.js";
import { appendEvents, type NewEvent } from "@waybill/contracts/events/outbox-events.js";
import { decodeCursor, toPage, type Page } from "@waybill/platform/pagination.js";
import type { OrdersDeps } from "./deps.js";
import type { StockLine } from "./inventory-port.js";
import { isShippable } from "./order-status.js";
import { moveOrder } from "./order-transitions.js";
import { lockOrder, type Order } from "./orders.js";
import { withSagaTransaction } from "./saga.js";
import { coversOrder, resolveShipmentItems } from "./shipment-items.js";
import { assertShipmentTransition, isShipmentStatus, type ShipmentStatus } from "./shipment-status.js";

export type ShipmentItem = StockLine;

export interface TimelineEntry {
  status: ShipmentStatus;
  at: string;
  location: string | null;
  note: string | null;
}

export interface Shipment {
  id: string;
  orderId: string;
  carrier: string;
  trackingNumber: string;
  status: ShipmentStatus;
  items: ShipmentItem[];
  deliveredAt: string | null;
  receivedBy: string | null;
  timeline: TimelineEntry[];
  createdAt: string;
  updatedAt: string;
}

export interface NewShipment {
  carrier: string;
  trackingNumber: string;
  /** Absent or empty: whatever the order's earlier shipments did not cover. */
  items?: ShipmentItem[];
}

/** A shipment by id (HTTP) or by tracking number (devices). */
export type ShipmentRef = string | { trackingNumber: string };

export interface ShipmentStatusChange {
  status: string;
  location?: string | null;
  note?: string | null;
  /** When it happened (ISO 8601); now when absent. Devices report their own time. */
  at?: string | null;
  /** Only for delivered. */
  receivedBy?: string | null;
}

export interface Delivery {
  receivedBy?: string | null;
  deliveredAt?: string | null;
  note?: string | null;
}

export interface ShipmentFilter {
  orderId?: string;
  status?: string;
  limit: number;
  cursor?: string | null;
}

/** Clocks of devices and integrations drift; a moment further ahead than this is a mistake. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export async function createShipment(
  deps: OrdersDeps,
  tenantId: string,
  orderId: string,
  input: NewShipment,
  idempotency?: IdempotencyRequest,
): Promise<IdempotentResult<Shipment>> {
  return withSagaTransaction(deps.pool, deps.logger, (client, saga) =>
    idempotent(client, tenantId, "shipments.create", idempotency, async () => {
      const order = await lockOrder(client, tenantId, orderId);
      if (!isShippable(order.status)) {
        throw appError("order_not_shippable", `A ${order.status} order cannot be shipped; it must be ready or inProgress.`);
      }
      const items = resolveShipmentItems(order.orderItems, await shippedItems(client, tenantId, orderId), input.items);
      const id = newId("shp");
      const { rows } = await client
        .query<{ created_at: Date }>(
          `INSERT INTO shipments (id, tenant_id, order_id, carrier, tracking_number, status) VALUES ($1, $2, $3, $4, $5, 'pending') RETURNING created_at`,
          [id, tenantId, orderId, input.carrier, input.trackingNumber],
        )
        .catch((error: { code?: string; constraint?: string }) => {
          if (error.code === UNIQUE_VIOLATION && error.constraint === "shipments_tenant_tracking_number") {
            throw appError("duplicate_tracking_number", `A shipment with trackingNumber "${input.trackingNumber}" already exists.`);
          }
          throw error;
        });
      await client.query(
        `INSERT INTO shipment_items (shipment_id, line_no, tenant_id, order_id, product_id, quantity)
         SELECT $1, i.line_no, $2, $3, i.product_id, i.quantity
           FROM unnest($4::text[], $5::integer[]) WITH ORDINALITY AS i(product_id, quantity, line_no)`,
        [id, tenantId, orderId, items.map((i) => i.productId), items.map((i) => i.quantity)],
      );
      await addTimelineEntry(client, tenantId, id, { status: "pending", at: rows[0].created_at.toISOString(), location: null, note: null });
      await appendEvents(client, deps.topology, [
        {
          tenantId,
          kind: "shipment.created",
          payload: { shipmentId: id, orderId, carrier: input.carrier, trackingNumber: input.trackingNumber, status: "pending", items },
        },
      ]);
      // The first shipment of a ready order starts its fulfilment, in this same transaction.
      if (order.status === "ready") await moveOrder(deps, client, saga, tenantId, order, "inProgress");
      return getShipment(client, tenantId, id);
    }),
  );
}

/**
 * Moves a shipment along its state machine, records it in the timeline and emits its events.
 * Delivering the last open shipment of an inProgress order, once its shipments carry every line,
 * completes the order (stock consumed) in the same transaction, so all of it shares one
 * transaction id.
 */
export async function applyShipmentStatus(deps: OrdersDeps, tenantId: string, ref: ShipmentRef, change: ShipmentStatusChange): Promise<Shipment> {
  const to = change.status;
  if (!isShipmentStatus(to)) {
    throw appError("validation_failed", `Unknown shipment status "${to}".`, { errors: [{ path: "status", message: "not a shipment status" }] });
  }
  const at = change.at ? pastInstant(change.at, "at") : new Date().toISOString();
  const location = change.location ?? null;
  const note = change.note ?? null;

  return withSagaTransaction(deps.pool, deps.logger, async (client, saga) => {
    const { id, orderId } = await findShipment(client, tenantId, ref);
    // Order first, then shipment: the lock order every change of an order's shipments uses.
    const order = await lockOrder(client, tenantId, orderId);
    const { rows } = await client.query<ShipmentRow>("SELECT * FROM shipments WHERE tenant_id = $1 AND id = $2 FOR UPDATE", [tenantId, id]);
    const current = rows[0];
    assertShipmentTransition(current.status, to);

    const delivered = to === "delivered";
    const receivedBy = delivered ? (change.receivedBy ?? null) : current.received_by;
    await client.query(`UPDATE shipments SET status = $3, delivered_at = $4, received_by = $5, updated_at = now() WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      id,
      to,
      delivered ? at : current.delivered_at,
      receivedBy,
    ]);
    await addTimelineEntry(client, tenantId, id, { status: to, at, location, note });

    const snapshot = { shipmentId: id, orderId, carrier: current.carrier, trackingNumber: current.tracking_number, status: to };
    const events: NewEvent[] = [
      {
        tenantId,
        kind: "shipment.status.changed",
        payload: { shipmentId: id, orderId, previousShipmentStatus: current.status, currentShipmentStatus: to, location, note },
      },
    ];
    if (delivered) events.push({ tenantId, kind: "shipment.delivered", payload: { ...snapshot, deliveredAt: at, receivedBy } });
    if (to === "exception") events.push({ tenantId, kind: "shipment.exception", payload: { ...snapshot, location, note } });
    await appendEvents(client, deps.topology, events);

    if (delivered && order.status === "inProgress" && (await isFullyDelivered(client, tenantId, order))) {
      await moveOrder(deps, client, saga, tenantId, order, "completed");
    }
    return getShipment(client, tenantId, id);
  });
}

/** POST /shipments/{id}/delivery: a delivery scan. */
export function recordDelivery(deps: OrdersDeps, tenantId: string, ref: ShipmentRef, delivery: Delivery): Promise<Shipment> {
  const at = delivery.deliveredAt ? pastInstant(delivery.deliveredAt, "deliveredAt") : null;
  return applyShipmentStatus(deps, tenantId, ref, { status: "delivered", at, note: delivery.note, receivedBy: delivery.receivedBy });
}

interface ShipmentRow {
  id: string;
  order_id: string;
  carrier: string;
  tracking_number: string;
  status: ShipmentStatus;
  delivered_at: Date | null;
  received_by: string | null;
  created_at: Date;
  updated_at: Date;
}

interface ShipmentViewRow extends ShipmentRow {
  items: ShipmentItem[];
  timeline: { status: ShipmentStatus; at: string; location: string | null; note: string | null }[];
}

const SHIPMENT_COLUMNS = `s.*,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('productId', i.product_id, 'quantity', i.quantity) ORDER BY i.line_no)
              FROM shipment_items i WHERE i.shipment_id = s.id), '[]'::jsonb) AS items,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('status', t.status, 'at', t.at, 'location', t.location, 'note', t.note) ORDER BY t.seq)
              FROM shipment_timeline t WHERE t.shipment_id = s.id), '[]'::jsonb) AS timeline`;

export async function getShipment(db: Queryable, tenantId: string, id: string): Promise<Shipment> {
  const { rows } = await db.query<ShipmentViewRow>(`SELECT ${SHIPMENT_COLUMNS} FROM shipments s WHERE s.tenant_id = $1 AND s.id = $2`, [tenantId, id]);
  if (rows.length === 0) throw appError("shipment_not_found", `No shipment ${id}.`);
  return shipmentFromRow(rows[0]);
}

export async function listShipments(db: Queryable, tenantId: string, filter: ShipmentFilter): Promise<Page<Shipment>> {
  if (filter.status !== undefined && !isShipmentStatus(filter.status)) {
    throw appError("validation_failed", `Unknown shipment status "${filter.status}".`, { errors: [{ path: "status", message: "not a shipment status" }] });
  }
  const after = decodeCursor(filter.cursor);
  const { rows } = await db.query<ShipmentViewRow>(
    // The page first, its items and timeline after (see listOrders).
    `SELECT ${SHIPMENT_COLUMNS} FROM (
       SELECT * FROM shipments
        WHERE tenant_id = $1 AND ($2::text IS NULL OR order_id = $2) AND ($3::text IS NULL OR status = $3)
          AND ($4::text IS NULL OR id < $4)
        ORDER BY id DESC LIMIT $5) s
      ORDER BY s.id DESC`,
    [tenantId, filter.orderId ?? null, filter.status ?? null, after, filter.limit + 1],
  );
  const page = toPage(rows, filter.limit);
  return { data: page.data.map(shipmentFromRow), nextCursor: page.nextCursor };
}

async function findShipment(db: Queryable, tenantId: string, ref: ShipmentRef): Promise<{ id: string; orderId: string }> {
  const byId = typeof ref === "string";
  const { rows } = await db.query<{ id: string; order_id: string }>(
    `SELECT id, order_id FROM shipments WHERE tenant_id = $1 AND ${byId ? "id" : "tracking_number"} = $2`,
    [tenantId, byId ? ref : ref.trackingNumber],
  );
  if (rows.length === 0) {
    throw appError("shipment_not_found", byId ? `No shipment ${ref}.` : `No shipment with trackingNumber "${ref.trackingNumber}".`);
  }
  return { id: rows[0].id, orderId: rows[0].order_id };
}

/**
 * Every shipment of the order delivered, and together they carry every line: a delivered partial
 * shipment leaves the rest of the order (and its reserved stock) open.
 */
async function isFullyDelivered(db: Queryable, tenantId: string, order: Order): Promise<boolean> {
  const open = await db.query("SELECT 1 FROM shipments WHERE tenant_id = $1 AND order_id = $2 AND status <> 'delivered' LIMIT 1", [tenantId, order.id]);
  if (open.rowCount !== 0) return false;
  return coversOrder(order.orderItems, await shippedItems(db, tenantId, order.id));
}

async function shippedItems(db: Queryable, tenantId: string, orderId: string): Promise<StockLine[]> {
  const { rows } = await db.query<{ product_id: string; quantity: number }>(
    "SELECT product_id, sum(quantity)::int AS quantity FROM shipment_items WHERE tenant_id = $1 AND order_id = $2 GROUP BY product_id",
    [tenantId, orderId],
  );
  return rows.map((r) => ({ productId: r.product_id, quantity: r.quantity }));
}

async function addTimelineEntry(client: PoolClient, tenantId: string, shipmentId: string, entry: TimelineEntry): Promise<void> {
  // The shipment's row lock (or its creation) makes max(seq) + 1 safe here.
  await client.query(
    `INSERT INTO shipment_timeline (shipment_id, seq, tenant_id, status, at, location, note)
     SELECT $1, COALESCE(max(seq), 0) + 1, $2, $3, $4, $5, $6 FROM shipment_timeline WHERE shipment_id = $1`,
    [shipmentId, tenantId, entry.status, entry.at, entry.location, entry.note],
  );
}

/** An ISO 8601 instant given by a caller, normalised to UTC, not (much) in the future. */
function pastInstant(value: string, path: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw appError("validation_failed", `${path} is not a valid date-time`, { errors: [{ path, message: "not a valid date-time" }] });
  if (date.getTime() > Date.now() + MAX_CLOCK_SKEW_MS) {
    throw appError("validation_failed", `${path} is in the future`, { errors: [{ path, message: "must not be in the future" }] });
  }
  return date.toISOString();
}

function shipmentFromRow(row: ShipmentViewRow): Shipment {
  return {
    id: row.id,
    orderId: row.order_id,
    carrier: row.carrier,
    trackingNumber: row.tracking_number,
    status: row.status,
    items: row.items,
    deliveredAt: row.delivered_at ? row.delivered_at.toISOString() : null,
    receivedBy: row.received_by,
    timeline: row.timeline.map((t) => ({ status: t.status, at: new Date(t.at).toISOString(), location: t.location, note: t.note })),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
