import { describe, expect, it } from "vitest";
import { allocate, compareLocations } from "./allocation.js";

const stock = [
  { productId: "prd_a", location: "zeta", available: 5 },
  { productId: "prd_a", location: "default", available: 2 },
  { productId: "prd_a", location: "alpha", available: 3 },
  { productId: "prd_b", location: "default", available: 1 },
];

describe("allocate", () => {
  it("takes from the default location first, then the others by name", () => {
    expect(allocate(new Map([["prd_a", 6]]), stock)).toEqual({
      ok: true,
      allocations: [
        { productId: "prd_a", location: "default", quantity: 2 },
        { productId: "prd_a", location: "alpha", quantity: 3 },
        { productId: "prd_a", location: "zeta", quantity: 1 },
      ],
    });
  });

  it("takes only what is needed", () => {
    expect(
      allocate(
        new Map([
          ["prd_a", 1],
          ["prd_b", 1],
        ]),
        stock,
      ),
    ).toEqual({
      ok: true,
      allocations: [
        { productId: "prd_a", location: "default", quantity: 1 },
        { productId: "prd_b", location: "default", quantity: 1 },
      ],
    });
  });

  it("allocates nothing and names every short product when any line cannot be covered", () => {
    expect(
      allocate(
        new Map([
          ["prd_a", 1],
          ["prd_b", 2],
          ["prd_c", 1],
        ]),
        stock,
      ),
    ).toEqual({
      ok: false,
      shortages: [
        { productId: "prd_b", requested: 2, available: 1 },
        { productId: "prd_c", requested: 1, available: 0 },
      ],
    });
  });

  it("skips empty locations", () => {
    const result = allocate(new Map([["prd_a", 2]]), [
      { productId: "prd_a", location: "default", available: 0 },
      { productId: "prd_a", location: "b", available: 2 },
    ]);
    expect(result).toEqual({ ok: true, allocations: [{ productId: "prd_a", location: "b", quantity: 2 }] });
  });

  it("orders locations with default first and the rest by code point", () => {
    expect(["b", "default", "A", "a"].sort(compareLocations)).toEqual(["default", "A", "a", "b"]);
  });
});
