// Storing a delivery in DELIVERIES, for the DELIVERIES consumer to attempt: what a hook could not
// take at once, and the next delivery of a per-entity queue. Nats-Msg-Id = the delivery's id, so
// storing the same delivery twice (a redelivered event, a repeated finish) stores it once.
import { TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import { headers, publishDurable, TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import { deliveriesSubject } from "./deliveries-stream.js";
import type { DeliveryMessage } from "./delivery-message.js";

/**
 * `msgId`, when given, replaces the delivery's id as the Nats-Msg-Id: a delivery stored again on
 * purpose (a parked one released) must not be taken for a copy of its earlier message, which
 * JetStream would drop without a word within its duplicate window.
 */
export type StoreDelivery = (delivery: DeliveryMessage, trace: { transactionId?: string; traceparent?: string; msgId?: string }) => Promise<void>;

export function createDeliveryStore(bus: Bus): StoreDelivery {
  return async (delivery, trace) => {
    const h = headers();
    h.set(TRANSACTION_ID_NATS_HEADER, trace.transactionId || delivery.eventId);
    h.set(TENANT_ID_NATS_HEADER, delivery.tenantId);
    if (trace.traceparent) h.set(TRACEPARENT_HEADER, trace.traceparent);
    await publishDurable(bus, deliveriesSubject(bus.topology, delivery.hookId), JSON.stringify(delivery), {
      msgId: trace.msgId ?? delivery.deliveryId,
      headers: h,
    });
  };
}
