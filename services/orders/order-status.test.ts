import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import {
  assertOrderTransition,
  canMoveOrder,
  isEditable,
  isOrderStatus,
  isShippable,
  ORDER_STATUSES,
  stockEffectOf,
  type OrderStatus,
} from "./order-status.js";

const ALLOWED: [OrderStatus, OrderStatus][] = [
  ["pending", "ready"],
  ["ready", "inProgress"],
  ["inProgress", "completed"],
  ["pending", "cancelled"],
  ["ready", "cancelled"],
  ["inProgress", "cancelled"],
];

describe("order state machine", () => {
  it.each(ALLOWED)("allows %s → %s", (from, to) => {
    expect(canMoveOrder(from, to)).toBe(true);
    expect(() => assertOrderTransition(from, to)).not.toThrow();
  });

  const refused = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as [OrderStatus, OrderStatus])).filter(
    ([from, to]) => !ALLOWED.some(([a, b]) => a === from && b === to),
  );

  it.each(refused)("refuses %s → %s with 409 invalid_status_transition", (from, to) => {
    expect(canMoveOrder(from, to)).toBe(false);
    let caught: unknown;
    try {
      assertOrderTransition(from, to);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).status).toBe(409);
    expect((caught as AppError).code).toBe("invalid_status_transition");
  });

  it("refuses the same status and everything out of a final status", () => {
    for (const status of ORDER_STATUSES) expect(canMoveOrder(status, status)).toBe(false);
    for (const to of ORDER_STATUSES) {
      expect(canMoveOrder("completed", to)).toBe(false);
      expect(canMoveOrder("cancelled", to)).toBe(false);
    }
  });

  it("names what stock does on entering each status", () => {
    expect(stockEffectOf("ready")).toBe("reserve");
    expect(stockEffectOf("cancelled")).toBe("release");
    expect(stockEffectOf("completed")).toBe("consume");
    expect(stockEffectOf("inProgress")).toBe("none");
    expect(stockEffectOf("pending")).toBe("none");
  });

  it("knows which orders can ship and which can be edited", () => {
    expect(ORDER_STATUSES.filter(isShippable)).toEqual(["ready", "inProgress"]);
    expect(ORDER_STATUSES.filter(isEditable)).toEqual(["pending", "ready", "inProgress"]);
  });

  it("recognises status names exactly", () => {
    expect(isOrderStatus("inProgress")).toBe(true);
    expect(isOrderStatus("in_progress")).toBe(false);
    expect(isOrderStatus("")).toBe(false);
  });
});
