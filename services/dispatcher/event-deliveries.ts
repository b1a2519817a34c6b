// A new event's deliveries, attempted straight from the EVENTS consumer. Queueing every hook ×
// event pair through the outbox and the DELIVERIES stream before its one POST cost more than the
// POST itself (an outbox row written, read and deleted, a message published, consumed and acked);
// so the pairs go to the delivery scheduler directly, and DELIVERIES carries only what needs it:
// retries, and what a hook could not take now (its lane full, its breaker open, its receiver slow).
//
// At-least-once holds because the event's message is acknowledged only once every pair is settled:
// its attempt recorded (executions), or its delivery stored in DELIVERIES. A crash before that makes
// JetStream redeliver the event; the redelivered event offers every subscribed hook again, and the
// deliverer, which reads each delivery's executions first, skips what was already delivered.
import { TRACEPARENT_HEADER } from "@waybill/platform/context.js";
import { headers, publishDurable, TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import type { DeliveryMessage } from "./delivery-message.js";
import type { DeliveryScheduler } from "./delivery-scheduler.js";

/**
 * How long a new event's delivery may wait in its hook's queue: the event's acknowledgement waits
 * for it, and the EVENTS consumer takes only so many events at once. Longer waits go to DELIVERIES.
 */
export const DIRECT_WAIT_BUDGET_MS = 1_000;
/** A hook whose deliveries take longer than this gets new events through DELIVERIES, not directly. */
export const DIRECT_MAX_PACE_MS = 2_000;

/** The event message the deliveries come from (a JsMsg, in production). */
export interface EventMessage {
  working(): void;
  info: { deliveryCount: number };
  headers?: { get(name: string): string } | undefined;
}

export interface EventDeliveriesDeps {
  bus: Bus;
  scheduler: DeliveryScheduler;
}

/** Offers the deliveries to the scheduler; resolves once each is recorded or stored in DELIVERIES. */
export type DeliverEvent = (message: EventMessage, deliveries: DeliveryMessage[]) => Promise<void>;

export function createEventDeliveries(deps: EventDeliveriesDeps): DeliverEvent {
  const { bus, scheduler } = deps;

  /** Stores a delivery in DELIVERIES (Nats-Msg-Id = its id, so a second store is a no-op). */
  const store = (delivery: DeliveryMessage, transactionId: string, traceparent: string | undefined) => {
    const h = headers();
    h.set(TRANSACTION_ID_NATS_HEADER, transactionId);
    h.set(TENANT_ID_NATS_HEADER, delivery.tenantId);
    if (traceparent) h.set(TRACEPARENT_HEADER, traceparent);
    return publishDurable(bus, bus.topology.deliveriesSubject(delivery.hookId), JSON.stringify(delivery), { msgId: delivery.deliveryId, headers: h });
  };

  return (message, deliveries) => {
    if (deliveries.length === 0) return Promise.resolve();
    const transactionId = message.headers?.get(TRANSACTION_ID_NATS_HEADER) || "";
    const traceparent = message.headers?.get(TRACEPARENT_HEADER) || undefined;
    return new Promise<void>((resolve, reject) => {
      let open = deliveries.length;
      let failure: Error | undefined;
      const done = (error?: Error) => {
        failure ??= error;
        if (--open > 0) return;
        if (failure) reject(failure);
        else resolve();
      };
      for (const delivery of deliveries) {
        let settled = false;
        const once = (fn: () => void) => {
          if (settled) return;
          settled = true;
          fn();
        };
        scheduler.submit(
          {
            delivery,
            settle: {
              ack: () => once(() => done()),
              // The delay is the DELIVERIES consumer's to keep: a recorded attempt names its next due
              // time, which that consumer reads before it attempts again.
              handBack: () =>
                once(() =>
                  store(delivery, transactionId || delivery.eventId, traceparent).then(
                    () => done(),
                    (error: Error) => done(error),
                  ),
                ),
              working: () => message.working(),
              keepsDelay: false,
              deliveryCount: message.info.deliveryCount,
              transactionId: transactionId || undefined,
              traceparent,
            },
          },
          { waitBudgetMs: DIRECT_WAIT_BUDGET_MS, maxPaceMs: DIRECT_MAX_PACE_MS },
        );
      }
    });
  };
}
