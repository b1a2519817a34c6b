// How each event kind a client can cause is caused (waybill trigger <kind>), and why the others
// cannot be. Recipes use the public API only, as a client would.
import { data } from "@waybill/sdk";
import type { Fixtures } from "./fixtures.js";

export interface Recipe {
  /** What it does, for --list. */
  does: string;
  /** What the credential must be allowed, for the message when it is not. */
  needs: string;
  run(f: Fixtures, options: { deviceApi?: Fixtures["api"] }): Promise<void>;
}

const ORDERS = "may create orders (a cli, machine or api token, or a session)";
const STOCK = "may adjust stock (a machine or api token, or a session; not a cli token)";
const CUSTOMERS = "may create customers (a machine or api token, or a session; not a cli token)";
const PRODUCTS = "may create products (a cli, machine or api token, or a session)";

async function stockedReadyOrder(f: Fixtures): Promise<string> {
  const orderId = await f.order({ stocked: true });
  await f.orderStatus(orderId, "ready");
  return orderId;
}

async function shipmentOfReadyOrder(f: Fixtures): Promise<string> {
  return f.shipment(await stockedReadyOrder(f));
}

const shipmentStatus = (f: Fixtures, id: string, status: "inTransit" | "exception") =>
  data(f.api.POST("/shipments/{id}/status", { params: { path: { id } }, body: { status, location: "Trigger depot", note: "waybill trigger" } }));

export const RECIPES: Record<string, Recipe> = {
  "order.created": { does: "creates a product and an order (for an existing customer, or a new one)", needs: ORDERS, run: (f) => f.order().then(() => {}) },
  "order.updated": {
    does: "creates an order and moves its due date",
    needs: ORDERS,
    run: async (f) => {
      const id = await f.order();
      await data(f.api.PUT("/orders/{id}", { params: { path: { id } }, body: { dueDate: new Date(Date.now() + 7 * 86_400_000).toISOString() } as never }));
    },
  },
  "order.status.changed": {
    does: "creates an order and cancels it (pending → cancelled)",
    needs: ORDERS,
    run: async (f) => f.orderStatus(await f.order(), "cancelled"),
  },
  "order.cancelled": { does: "creates an order and cancels it", needs: ORDERS, run: async (f) => f.orderStatus(await f.order(), "cancelled") },
  "order.completed": {
    does: "stocks a product, orders it and moves the order ready → inProgress → completed",
    needs: STOCK,
    run: async (f) => {
      const id = await stockedReadyOrder(f);
      await f.orderStatus(id, "inProgress");
      await f.orderStatus(id, "completed");
    },
  },
  "shipment.created": {
    does: "stocks a product, orders it, makes the order ready and ships it",
    needs: STOCK,
    run: (f) => shipmentOfReadyOrder(f).then(() => {}),
  },
  "shipment.status.changed": {
    does: "ships a ready order and moves the shipment to inTransit",
    needs: STOCK,
    run: async (f) => void (await shipmentStatus(f, await shipmentOfReadyOrder(f), "inTransit")),
  },
  "shipment.delivered": {
    does: "ships a ready order, moves the shipment to inTransit and records its delivery",
    needs: STOCK,
    run: async (f) => {
      const id = await shipmentOfReadyOrder(f);
      await shipmentStatus(f, id, "inTransit");
      await data(f.api.POST("/shipments/{id}/delivery", { params: { path: { id } }, body: { receivedBy: "waybill trigger" } }));
    },
  },
  "shipment.exception": {
    does: "ships a ready order and reports an exception on the shipment",
    needs: STOCK,
    run: async (f) => void (await shipmentStatus(f, await shipmentOfReadyOrder(f), "exception")),
  },
  "inventory.adjusted": {
    does: "creates a product and sets its stock to 10",
    needs: STOCK,
    run: async (f) => f.stock(await f.product(), 10, "waybill trigger"),
  },
  "inventory.reserved": {
    does: "stocks a product, orders it and makes the order ready (reserves the stock)",
    needs: STOCK,
    run: (f) => stockedReadyOrder(f).then(() => {}),
  },
  "inventory.released": {
    does: "reserves stock for a ready order, then cancels the order",
    needs: STOCK,
    run: async (f) => f.orderStatus(await stockedReadyOrder(f), "cancelled"),
  },
  "inventory.consumed": {
    does: "reserves stock for a ready order, then completes the order",
    needs: STOCK,
    run: async (f) => {
      const id = await stockedReadyOrder(f);
      await f.orderStatus(id, "inProgress");
      await f.orderStatus(id, "completed");
    },
  },
  "inventory.low": {
    does: "creates a product with a low-stock threshold of 5, sets its stock to 10, then to 3",
    needs: STOCK,
    run: async (f) => {
      const id = await f.product({ lowStockThreshold: 5 });
      await f.stock(id, 10, "waybill trigger: above the threshold");
      await f.stock(id, 3, "waybill trigger: below the threshold");
    },
  },
  "inventory.depleted": {
    does: "creates a product, sets its stock to 5, then to 0",
    needs: STOCK,
    run: async (f) => {
      const id = await f.product();
      await f.stock(id, 5, "waybill trigger: in stock");
      await f.stock(id, 0, "waybill trigger: sold out");
    },
  },
  "product.created": { does: "creates a product", needs: PRODUCTS, run: (f) => f.product().then(() => {}) },
  "product.updated": {
    does: "creates a product and renames it",
    needs: PRODUCTS,
    run: async (f) => {
      const id = await f.product();
      await data(f.api.PUT("/products/{id}", { params: { path: { id } }, body: { name: `Trigger product ${f.tag} (renamed)` } as never }));
    },
  },
  "product.deleted": {
    does: "creates a product and deletes it",
    needs: PRODUCTS,
    run: async (f) => {
      const id = await f.product();
      await f.api.DELETE("/products/{id}", { params: { path: { id } } });
    },
  },
  "customer.created": { does: "creates a customer", needs: CUSTOMERS, run: (f) => f.newCustomer().then(() => {}) },
  "customer.updated": {
    does: "creates a customer and renames them",
    needs: CUSTOMERS,
    run: async (f) => {
      const id = await f.newCustomer();
      await data(f.api.PUT("/customers/{id}", { params: { path: { id } }, body: { name: `Trigger customer ${f.tag} (renamed)` } as never }));
    },
  },
  "device.reading": {
    does: "sends a telemetry reading for device waybill-trigger through POST /v1/devices/waybill-trigger/readings",
    needs: "may publish device readings (a sensor, machine or api token; give a sensor token with --device-token)",
    run: async (f, { deviceApi }) => {
      const api = deviceApi ?? f.api;
      const deviceId = "waybill-trigger";
      await data(
        api.POST("/devices/{deviceId}/readings", {
          params: { path: { deviceId } },
          body: { channel: "telemetry", payload: { temperature: 21.5, trigger: f.tag } },
        }),
      );
      f.created.push({ what: "device reading", id: deviceId, shared: true });
    },
  },
};

/** Kinds in the catalog that no API call causes, and how they come about. */
export const NOT_TRIGGERABLE: Record<string, string> = {
  "device.connected":
    "a device connecting to the MQTT gateway with a sensor token (e.g. mosquitto_sub -u <deviceId> -P sensor-… -t 'devices/<deviceId>/commands/#')",
  "device.disconnected": "a device's MQTT connection ending",
  "webhook.test": "sent to one hook by `waybill hooks test <hook id>`; it is delivered, not written to the event log",
  "webhook.disabled": "the dispatcher disabling a hook whose deliveries failed through the whole retry schedule (hours)",
};
