// The events catalog: every kind Waybill emits and the schema of its payload. This is the single
// source for validation when an event is written, for GET /v1/event-kinds and for hook `on` values.
import { z } from "zod";

const id = z.string();
const timestamp = z.string().datetime();
const money = z.string().regex(/^-?\d+(\.\d+)?$/);

const orderItem = z.object({ productId: id, quantity: z.number().int(), price: money });
const orderStatus = z.enum(["pending", "ready", "inProgress", "completed", "cancelled"]);
const shipmentStatus = z.enum(["pending", "inTransit", "delivered", "exception"]);

const orderSnapshot = {
  orderId: id,
  shortId: z.string(),
  customerId: id,
  dueDate: timestamp.nullable(),
  currency: z.string().length(3),
  status: orderStatus,
  orderItems: z.array(orderItem),
  total: money,
};

const stockLevel = {
  productId: id,
  location: z.string(),
  onHand: z.number().int(),
  reserved: z.number().int(),
  available: z.number().int(),
};

const productSnapshot = {
  productId: id,
  sku: z.string(),
  name: z.string(),
  price: money.nullable(),
  currency: z.string().length(3).nullable(),
  lowStockThreshold: z.number().int().nullable(),
};

const shipmentSnapshot = {
  shipmentId: id,
  orderId: id,
  carrier: z.string(),
  trackingNumber: z.string(),
  status: shipmentStatus,
};

const address = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  city: z.string(),
  region: z.string().nullable(),
  postalCode: z.string().nullable(),
  country: z.string().length(2),
});

const customerSnapshot = {
  customerId: id,
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  address: address.nullable(),
};

export const EVENT_PAYLOADS = {
  "order.created": z.object(orderSnapshot),
  "order.updated": z.object({ ...orderSnapshot, changedFields: z.array(z.string()) }),
  "order.status.changed": z.object({ orderId: id, previousOrderStatus: orderStatus, currentOrderStatus: orderStatus }),
  "order.cancelled": z.object({ orderId: id, previousOrderStatus: orderStatus }),
  "order.completed": z.object({ orderId: id }),
  "shipment.created": z.object({ ...shipmentSnapshot, items: z.array(z.object({ productId: id, quantity: z.number().int() })) }),
  "shipment.status.changed": z.object({
    shipmentId: id,
    orderId: id,
    previousShipmentStatus: shipmentStatus,
    currentShipmentStatus: shipmentStatus,
    location: z.string().nullable(),
    note: z.string().nullable(),
  }),
  "shipment.delivered": z.object({ ...shipmentSnapshot, deliveredAt: timestamp, receivedBy: z.string().nullable() }),
  "shipment.exception": z.object({ ...shipmentSnapshot, location: z.string().nullable(), note: z.string().nullable() }),
  "inventory.adjusted": z.object({ ...stockLevel, delta: z.number().int(), reason: z.string() }),
  "inventory.reserved": z.object({ ...stockLevel, orderId: id, quantity: z.number().int() }),
  "inventory.released": z.object({ ...stockLevel, orderId: id, quantity: z.number().int() }),
  "inventory.consumed": z.object({ ...stockLevel, orderId: id, quantity: z.number().int() }),
  "inventory.low": z.object({ ...stockLevel, lowStockThreshold: z.number().int() }),
  "inventory.depleted": z.object(stockLevel),
  "product.created": z.object(productSnapshot),
  "product.updated": z.object({ ...productSnapshot, changedFields: z.array(z.string()) }),
  "product.deleted": z.object({ productId: id, sku: z.string() }),
  "customer.created": z.object(customerSnapshot),
  "customer.updated": z.object({ ...customerSnapshot, changedFields: z.array(z.string()) }),
  "device.reading": z.object({ deviceId: z.string(), reading: z.record(z.string(), z.unknown()), receivedAt: timestamp }),
  "device.connected": z.object({ deviceId: z.string(), tokenId: id }),
  "device.disconnected": z.object({ deviceId: z.string(), tokenId: id }),
  "webhook.test": z.object({ hookId: id }),
  "webhook.disabled": z.object({ hookId: id, name: z.string(), url: z.string(), disabledReason: z.string(), failingSince: timestamp }),
} as const;

export type EventKind = keyof typeof EVENT_PAYLOADS;
export type EventPayload<K extends EventKind> = z.input<(typeof EVENT_PAYLOADS)[K]>;

export const EVENT_KINDS = Object.freeze(Object.keys(EVENT_PAYLOADS) as EventKind[]);

export function isEventKind(kind: string): kind is EventKind {
  return Object.hasOwn(EVENT_PAYLOADS, kind);
}

/** The envelope every event shares; payload fields sit flat beside these. */
export interface EventEnvelope {
  id: string;
  kind: EventKind;
  time: string;
  transactionId: string;
  [field: string]: unknown;
}

/** JSON Schema of each kind's full event (envelope + payload), for GET /v1/event-kinds. */
export function eventKindSchemas(): { kind: EventKind; schema: unknown }[] {
  const envelope = z.object({ id: z.string(), kind: z.string(), time: timestamp, transactionId: z.string() });
  return EVENT_KINDS.map((kind) => ({
    kind,
    schema: z.toJSONSchema(envelope.extend({ kind: z.literal(kind) }).extend(EVENT_PAYLOADS[kind].shape), { io: "input" }),
  }));
}
