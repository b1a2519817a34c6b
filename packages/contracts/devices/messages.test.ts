import { describe, expect, it } from "vitest";
import { inventoryReadingSchema, shipmentScanSchema } from "./messages.js";

describe("device payloads", () => {
  it("accept the documented shapes and refuse the rest", () => {
    expect(inventoryReadingSchema.safeParse({ productId: "prd_1", onHand: 3 }).success).toBe(true);
    expect(inventoryReadingSchema.safeParse({ productId: "prd_1", onHand: 3, location: "A", measuredAt: "2026-01-01T00:00:00Z" }).success).toBe(true);
    for (const bad of [
      { productId: "prd_1" },
      { productId: "prd_1", onHand: -1 },
      { productId: "prd_1", onHand: 1.5 },
      { productId: "", onHand: 1 },
      { productId: "prd_1", onHand: 1, measuredAt: "yesterday" },
    ]) {
      expect(inventoryReadingSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(shipmentScanSchema.safeParse({ trackingNumber: "T1", status: "inTransit" }).success).toBe(true);
    expect(shipmentScanSchema.safeParse({ status: "inTransit" }).success).toBe(false);
  });
});
