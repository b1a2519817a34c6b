// The shipment state machine as pure functions.
import { appError } from "@waybill/contracts/errors/catalog.js";

export const SHIPMENT_STATUSES = ["pending", "inTransit", "delivered", "exception"] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

/** pending → inTransit → delivered; exception from pending/inTransit; back to inTransit from exception. */
const NEXT: Readonly<Record<ShipmentStatus, readonly ShipmentStatus[]>> = Object.freeze({
  pending: ["inTransit", "exception"],
  inTransit: ["delivered", "exception"],
  exception: ["inTransit"],
  delivered: [],
});

export function isShipmentStatus(value: string): value is ShipmentStatus {
  return (SHIPMENT_STATUSES as readonly string[]).includes(value);
}

export function canMoveShipment(from: ShipmentStatus, to: ShipmentStatus): boolean {
  return NEXT[from].includes(to);
}

/** Throws 409 invalid_status_transition unless `from → to` is a move of the machine. */
export function assertShipmentTransition(from: ShipmentStatus, to: ShipmentStatus): void {
  if (canMoveShipment(from, to)) return;
  const allowed = NEXT[from];
  const hint = allowed.length === 0 ? `${from} is final` : `from ${from} it can move to ${allowed.join(" or ")}`;
  throw appError("invalid_status_transition", `A shipment cannot move from ${from} to ${to}: ${hint}.`);
}
