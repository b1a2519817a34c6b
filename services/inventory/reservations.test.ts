import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { demandOf } from "./reservations.js";

describe("demandOf", () => {
  it("sums the lines of one product", () => {
    expect(
      demandOf("ord_x", [
        { productId: "prd_a", quantity: 2 },
        { productId: "prd_b", quantity: 1 },
        { productId: "prd_a", quantity: 3 },
      ]),
    ).toEqual(
      new Map([
        ["prd_a", 5],
        ["prd_b", 1],
      ]),
    );
  });

  it.each([
    ["no order id", "", [{ productId: "prd_a", quantity: 1 }]],
    ["no lines", "ord_x", []],
    ["a zero quantity", "ord_x", [{ productId: "prd_a", quantity: 0 }]],
    ["a negative quantity", "ord_x", [{ productId: "prd_a", quantity: -1 }]],
    ["a line without product", "ord_x", [{ productId: "", quantity: 1 }]],
  ])("refuses %s", (_, orderId, lines) => {
    expect(() => demandOf(orderId as string, lines as { productId: string; quantity: number }[])).toThrow(AppError);
  });
});
