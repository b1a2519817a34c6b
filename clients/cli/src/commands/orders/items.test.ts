import { describe, expect, it } from "vitest";
import { orderItem } from "./items.js";

describe("orderItem (--item PRODUCT:QUANTITY:PRICE)", () => {
  it("collects lines, keeping the price as written", () => {
    const first = orderItem("prd_01abc:2:19.99");
    expect(orderItem("prd_02def:1:5", first)).toEqual([
      { productId: "prd_01abc", quantity: 2, price: "19.99" },
      { productId: "prd_02def", quantity: 1, price: "5" },
    ]);
  });
  it("refuses a malformed line or a quantity below 1", () => {
    for (const bad of ["prd_01abc", "prd_01abc:2", "prd_01abc:x:1", "prd_01abc:2:-1", "prd_01abc:2:1,50", ":2:1"])
      expect(() => orderItem(bad)).toThrow("PRODUCT:QUANTITY:PRICE");
    expect(() => orderItem("prd_01abc:0:1")).toThrow("at least 1");
  });
});
