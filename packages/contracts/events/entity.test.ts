import { describe, expect, it } from "vitest";
import type { EventEnvelope } from "./catalog.js";
import { entityOf } from "./entity.js";

const event = (kind: string, fields: Record<string, unknown>) =>
  ({ id: "evt_1", kind, time: "2026-01-01T00:00:00Z", transactionId: "t", ...fields }) as EventEnvelope;

describe("entityOf", () => {
  it("names the order, shipment or product an event is about", () => {
    expect(entityOf(event("order.status.changed", { orderId: "ord_1" }))).toBe("order:ord_1");
    expect(entityOf(event("shipment.delivered", { shipmentId: "shp_1", orderId: "ord_1" }))).toBe("shipment:shp_1");
    // Stock events are about the product, as are product events.
    expect(entityOf(event("inventory.reserved", { productId: "prd_1", orderId: "ord_1" }))).toBe("product:prd_1");
    expect(entityOf(event("product.updated", { productId: "prd_1" }))).toBe("product:prd_1");
    expect(entityOf(event("device.reading", { deviceId: "dev-7" }))).toBe("device:dev-7");
  });

  it("answers nothing for an event without its entity's id", () => {
    expect(entityOf(event("order.created", {}))).toBeUndefined();
    expect(entityOf(event("order.created", { orderId: 5 }))).toBeUndefined();
  });
});
