import { describe, expect, it } from "vitest";
import type { StockLevel } from "./stock.js";
import { crossingEvents, thresholdChangeEvents } from "./thresholds.js";

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

describe("thresholdChangeEvents", () => {
  const at = (location: string, available: number): StockLevel => ({ productId: "prd_x", location, onHand: available, reserved: 0, available });
  const lowAt = (levels: StockLevel[], before: number | null, after: number | null) =>
    thresholdChangeEvents("ten_x", levels, before, after).map((e) => [e.kind, (e.payload as { location: string }).location]);

  it("fires inventory.low for each location the raised threshold now sits above", () => {
    const levels = [at("default", 4), at("north", 10), at("south", 0)];
    expect(lowAt(levels, null, 5)).toEqual([
      ["inventory.low", "default"],
      ["inventory.low", "south"],
    ]);
    expect(lowAt(levels, 3, 5)).toEqual([["inventory.low", "default"]]); // south was low already
    expect(lowAt(levels, 5, 11)).toEqual([["inventory.low", "north"]]);
  });

  it("fires nothing when lowered, cleared or not crossing", () => {
    const levels = [at("default", 4)];
    expect(lowAt(levels, 5, 2)).toEqual([]);
    expect(lowAt(levels, 5, null)).toEqual([]);
    expect(lowAt(levels, 2, 4)).toEqual([]); // at the threshold is not below it
    expect(lowAt(levels, 5, 6)).toEqual([]); // low before and after
  });

  it("carries the stock level and the new threshold", () => {
    const [low] = thresholdChangeEvents("ten_x", [{ productId: "prd_x", location: "default", onHand: 5, reserved: 3, available: 2 }], null, 3);
    expect(low).toEqual({
      tenantId: "ten_x",
      kind: "inventory.low",
      payload: { productId: "prd_x", location: "default", onHand: 5, reserved: 3, available: 2, lowStockThreshold: 3 },
    });
  });
});
