import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { assertShipmentTransition, canMoveShipment, isShipmentStatus, SHIPMENT_STATUSES, type ShipmentStatus } from "./shipment-status.js";

const ALLOWED: [ShipmentStatus, ShipmentStatus][] = [
  ["pending", "inTransit"],
  ["inTransit", "delivered"],
  ["pending", "exception"],
  ["inTransit", "exception"],
  ["exception", "inTransit"],
];

describe("shipment state machine", () => {
  it.each(ALLOWED)("allows %s → %s", (from, to) => {
    expect(canMoveShipment(from, to)).toBe(true);
    expect(() => assertShipmentTransition(from, to)).not.toThrow();
  });

  const refused = SHIPMENT_STATUSES.flatMap((from) => SHIPMENT_STATUSES.map((to) => [from, to] as [ShipmentStatus, ShipmentStatus])).filter(
    ([from, to]) => !ALLOWED.some(([a, b]) => a === from && b === to),
  );

  it.each(refused)("refuses %s → %s with 409 invalid_status_transition", (from, to) => {
    expect(canMoveShipment(from, to)).toBe(false);
    expect(() => assertShipmentTransition(from, to)).toThrow(AppError);
    try {
      assertShipmentTransition(from, to);
    } catch (error) {
      expect((error as AppError).code).toBe("invalid_status_transition");
    }
  });

  it("keeps delivered final and never skips inTransit", () => {
    for (const to of SHIPMENT_STATUSES) expect(canMoveShipment("delivered", to)).toBe(false);
    expect(canMoveShipment("pending", "delivered")).toBe(false);
    expect(canMoveShipment("exception", "delivered")).toBe(false);
  });

  it("recognises status names exactly", () => {
    expect(isShipmentStatus("inTransit")).toBe(true);
    expect(isShipmentStatus("in_transit")).toBe(false);
  });
});
