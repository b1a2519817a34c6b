import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { coversOrder, resolveShipmentItems } from "./shipment-items.js";

const ordered = [
  { productId: "prd_a", quantity: 3 },
  { productId: "prd_b", quantity: 1 },
  { productId: "prd_a", quantity: 2 },
];

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("resolveShipmentItems", () => {
  it("defaults to everything not shipped yet", () => {
    expect(resolveShipmentItems(ordered, [], undefined)).toEqual([
      { productId: "prd_a", quantity: 5 },
      { productId: "prd_b", quantity: 1 },
    ]);
    expect(
      resolveShipmentItems(
        ordered,
        [
          { productId: "prd_a", quantity: 4 },
          { productId: "prd_b", quantity: 1 },
        ],
        [],
      ),
    ).toEqual([{ productId: "prd_a", quantity: 1 }]);
  });

  it("refuses a default shipment when everything is shipped already", () => {
    const error = thrown(() =>
      resolveShipmentItems(
        ordered,
        [
          { productId: "prd_a", quantity: 5 },
          { productId: "prd_b", quantity: 1 },
        ],
        undefined,
      ),
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("order_fully_shipped");
  });

  it("accepts listed items within what is left, summing repeated products", () => {
    expect(
      resolveShipmentItems(
        ordered,
        [{ productId: "prd_a", quantity: 1 }],
        [
          { productId: "prd_a", quantity: 2 },
          { productId: "prd_a", quantity: 2 },
        ],
      ),
    ).toEqual([{ productId: "prd_a", quantity: 4 }]);
  });

  it("names each item that is not in the order or exceeds what is left", () => {
    const error = thrown(() =>
      resolveShipmentItems(
        ordered,
        [{ productId: "prd_b", quantity: 1 }],
        [
          { productId: "prd_x", quantity: 1 },
          { productId: "prd_b", quantity: 1 },
          { productId: "prd_a", quantity: 5 },
          { productId: "prd_a", quantity: 1 },
        ],
      ),
    ) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(422);
    expect(error.errors).toEqual([
      { path: "items.0.productId", message: "not a product of this order" },
      { path: "items.1.quantity", message: "more than the order has left to ship (0)" },
      { path: "items.3.quantity", message: "more than the order has left to ship (0)" },
    ]);
  });
});

describe("coversOrder", () => {
  it("is true only when the shipments together carry every line, repeated products summed", () => {
    expect(coversOrder(ordered, [])).toBe(false);
    expect(
      coversOrder(ordered, [
        { productId: "prd_a", quantity: 3 },
        { productId: "prd_b", quantity: 1 },
      ]),
    ).toBe(false);
    expect(coversOrder(ordered, [{ productId: "prd_a", quantity: 5 }])).toBe(false);
    expect(
      coversOrder(ordered, [
        { productId: "prd_a", quantity: 2 },
        { productId: "prd_b", quantity: 1 },
        { productId: "prd_a", quantity: 3 },
      ]),
    ).toBe(true);
  });
});
