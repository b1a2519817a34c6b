// Which entity an event is about: the key per-entity ordered delivery queues by. Events about one
// order (its status changes, its reservations), one shipment, one product's stock, one customer,
// one device or one hook share a key; the kind's payload names it.
import type { EventEnvelope, EventKind } from "./catalog.js";

const ENTITY_FIELD: Record<string, string> = {
  order: "orderId",
  shipment: "shipmentId",
  inventory: "productId",
  product: "productId",
  customer: "customerId",
  device: "deviceId",
  webhook: "hookId",
};

/** `"<type>:<id>"` (e.g. "order:ord_…"), or undefined when the event names no entity. */
export function entityOf(event: EventEnvelope): string | undefined {
  const type = (event.kind as EventKind).split(".")[0];
  const field = ENTITY_FIELD[type];
  const id = field === undefined ? undefined : event[field];
  return typeof id === "string" && id.length > 0 ? `${type === "inventory" ? "product" : type}:${id}` : undefined;
}
