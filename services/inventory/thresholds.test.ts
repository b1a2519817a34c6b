import { describe, expect, it } from "vitest";
import type { StockLevel } from "./stock.js";
import { crossingEvents } from "./thresholds.js";

const level = (available: number, reserved = 0): StockLevel => ({ productId: "prd_x", location: "default", onHand: available + reserved, reserved, available });
const kinds = (before: number, after: number, threshold: number | null) => crossingEvents("ten_x", level(before), level(after), threshold).map((e) => e.kind);

describe("crossingEvents", () => {
  it("fires inventory.low only on the change that goes below the threshold", () => {
    expect(kinds(10, 5, 5)).toEqual([]); // at the threshold is not below it
    expect(kinds(5, 4, 5)).toEqual(["inventory.low"]);
    expect(kinds(10, 4, 5)).toEqual(["inventory.low"]);
    expect(kinds(4, 3, 5)).toEqual([]); // already below: no new crossing
    expect(kinds(3, 8, 5)).toEqual([]); // going up never alerts
  });

  it("fires inventory.depleted when available reaches zero from above", () => {
    expect(kinds(1, 0, null)).toEqual(["inventory.depleted"]);
    expect(kinds(0, 0, null)).toEqual([]);
    expect(kinds(0, 3, null)).toEqual([]);
  });

  it("fires both when one change crosses the threshold and empties the stock", () => {
    expect(kinds(10, 0, 5)).toEqual(["inventory.low", "inventory.depleted"]);
  });

  it("never fires inventory.low without a threshold, nor below a threshold of 0", () => {
    expect(kinds(10, 1, null)).toEqual([]);
    expect(kinds(10, 0, 0)).toEqual(["inventory.depleted"]);
  });

  it("carries the stock level after the change and the threshold", () => {
    const [low] = crossingEvents("ten_x", level(6), level(2, 3), 5);
    expect(low).toEqual({
      tenantId: "ten_x",
      kind: "inventory.low",
      payload: { productId: "prd_x", location: "default", onHand: 5, reserved: 3, available: 2, lowStockThreshold: 5 },
    });
  });
});
