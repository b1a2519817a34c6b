import { describe, expect, it } from "vitest";
import { deviceChannelFilter } from "./device-consumer.js";
import { inventoryReadingSchema, shipmentScanSchema } from "./device-messages.js";
import { createTopology, type Bus } from "./nats.js";

const busWith = (prefix: string) => ({ topology: createTopology(prefix) }) as Bus;

describe("deviceChannelFilter", () => {
  it("matches one channel of every tenant's devices, prefixed like the stream's subjects", () => {
    expect(deviceChannelFilter(busWith(""), "inventory")).toBe("ingress.*.devices.*.inventory");
    expect(deviceChannelFilter(busWith("T1_"), "shipments")).toBe("t1_.ingress.*.devices.*.shipments");
    const topology = createTopology("T1_");
    expect(topology.ingressSubject("ten_a", "devices", "dev-1", "shipments")).toMatch(/^t1_\.ingress\.[^.]+\.devices\.[^.]+\.shipments$/);
  });
});

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
