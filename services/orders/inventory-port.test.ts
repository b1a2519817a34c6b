import { describe, expect, it } from "vitest";
import { stockLinesOf } from "./inventory-port.js";

describe("stockLinesOf", () => {
  it("sums the lines of one product and keeps first-seen order", () => {
    expect(
      stockLinesOf([
        { productId: "prd_b", quantity: 2 },
        { productId: "prd_a", quantity: 1 },
        { productId: "prd_b", quantity: 3 },
      ]),
    ).toEqual([
      { productId: "prd_b", quantity: 5 },
      { productId: "prd_a", quantity: 1 },
    ]);
  });

  it("accepts extra fields on the items and drops them", () => {
    expect(stockLinesOf([{ productId: "prd_a", quantity: 1, price: "1.00" } as never])).toEqual([{ productId: "prd_a", quantity: 1 }]);
  });

  it("maps no items to no lines", () => {
    expect(stockLinesOf([])).toEqual([]);
  });
});
