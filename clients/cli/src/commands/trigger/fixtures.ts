// The real resources a trigger creates: each helper makes one and records it, so that the command
// can print what it created and find the events that name it.
import { data, WaybillApiError, type WaybillClient } from "@waybill/sdk";

export interface CreatedResource {
  what: string;
  id: string;
  /** The id names more than this trigger (an existing customer, the trigger's device): not used to find its events. */
  shared?: boolean;
}

export interface Fixtures {
  readonly api: WaybillClient;
  readonly created: CreatedResource[];
  /** A unique tag for names, SKUs and short ids. */
  readonly tag: string;
  customer(): Promise<string>;
  newCustomer(): Promise<string>;
  product(options?: { lowStockThreshold?: number }): Promise<string>;
  stock(productId: string, setTo: number, reason: string): Promise<void>;
  order(options?: { stocked?: boolean }): Promise<string>;
  orderStatus(orderId: string, status: "ready" | "inProgress" | "completed" | "cancelled"): Promise<void>;
  shipment(orderId: string): Promise<string>;
}

const PRICE = "9.99";

export function createFixtures(api: WaybillClient, tag: string): Fixtures {
  const created: CreatedResource[] = [];
  const record = (what: string, id: string) => {
    created.push({ what, id });
    return id;
  };
  const fixtures: Fixtures = {
    api,
    created,
    tag,
    async customer() {
      // Orders need a customer; an existing one keeps the customer list clean, and a cli token
      // (which may not create customers) can still trigger order events.
      const existing = await data(api.GET("/customers", { params: { query: { limit: 1 } } }));
      if (existing.data[0]) {
        created.push({ what: "customer (existing)", id: existing.data[0].id, shared: true });
        return existing.data[0].id;
      }
      return fixtures.newCustomer().catch((error: unknown) => {
        if (!isForbidden(error)) throw error;
        // A fresh tenant with a cli token: say what is missing, not that orders are forbidden.
        throw Object.assign(error, {
          hint:
            "order events need a customer and this tenant has none yet, and this token may not create one: " +
            'create one first with an api or machine token (waybill customers create --name "…" --token api-…) or in the console, then trigger again',
        });
      });
    },
    async newCustomer() {
      const customer = await data(api.POST("/customers", { body: { name: `Trigger customer ${tag}` } as never }));
      return record("customer", customer.id);
    },
    async product(options = {}) {
      const body = { sku: `TRIGGER-${tag}-${created.length}`, name: `Trigger product ${tag}`, price: PRICE, currency: "EUR", ...options };
      const product = await data(api.POST("/products", { body: body as never }));
      return record("product", product.id);
    },
    async stock(productId, setTo, reason) {
      await data(api.POST("/inventory/adjustments", { body: { productId, setTo, reason } as never }));
      record(`stock set to ${setTo}`, productId);
    },
    async order(options = {}) {
      const customerId = await fixtures.customer();
      const productId = await fixtures.product();
      if (options.stocked) await fixtures.stock(productId, 10, "waybill trigger: stock for an order");
      const body = { shortId: `TRIGGER-${tag}-${created.length}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: PRICE }] };
      const order = await data(api.POST("/orders", { body: body as never }));
      return record("order", order.id);
    },
    async orderStatus(orderId, status) {
      await data(api.POST("/orders/{id}/status", { params: { path: { id: orderId } }, body: { status } }));
      record(`order → ${status}`, orderId);
    },
    async shipment(orderId) {
      const shipment = await data(
        api.POST("/orders/{id}/shipments", { params: { path: { id: orderId } }, body: { carrier: "Trigger Post", trackingNumber: `TRIGGER-${tag}` } }),
      );
      return record("shipment", shipment.id);
    },
  };
  return fixtures;
}

/** A refusal for want of permission, told with what the trigger needs. */
export function isForbidden(error: unknown): error is WaybillApiError {
  return error instanceof WaybillApiError && error.status === 403;
}
