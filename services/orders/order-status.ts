// The order state machine as pure functions: which moves are allowed and what each move does
// to stock. Persistence and side effects live in order-transitions.ts.
import { appError } from "@waybill/contracts/errors/catalog.js";

export const ORDER_STATUSES = ["pending", "ready", "inProgress", "completed", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** pending → ready → inProgress → completed; pending | ready | inProgress → cancelled. */
const NEXT: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = Object.freeze({
  pending: ["ready", "cancelled"],
  ready: ["inProgress", "cancelled"],
  inProgress: ["completed", "cancelled"],
  completed: [],
  cancelled: [],
});

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}

export function canMoveOrder(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT[from].includes(to);
}

/** Throws 409 invalid_status_transition unless `from → to` is a move of the machine. */
export function assertOrderTransition(from: OrderStatus, to: OrderStatus): void {
  if (canMoveOrder(from, to)) return;
  const allowed = NEXT[from];
  const hint = allowed.length === 0 ? `${from} is final` : `from ${from} it can move to ${allowed.join(" or ")}`;
  throw appError("invalid_status_transition", `An order cannot move from ${from} to ${to}: ${hint}.`);
}

export type StockEffect = "reserve" | "release" | "consume" | "none";

/** What entering `to` does to the order's stock (API.md: ready reserves, cancelled releases, completed consumes). */
export function stockEffectOf(to: OrderStatus): StockEffect {
  switch (to) {
    case "ready":
      return "reserve";
    case "cancelled":
      return "release";
    case "completed":
      return "consume";
    default:
      return "none";
  }
}

/** Orders that may still get shipments. */
export function isShippable(status: OrderStatus): boolean {
  return status === "ready" || status === "inProgress";
}

/** Orders whose fields (due date, customer) may still change. */
export function isEditable(status: OrderStatus): boolean {
  return status !== "completed" && status !== "cancelled";
}
