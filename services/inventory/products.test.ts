import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { normalizeProductFields, type ProductFields } from "./products.js";

const base: ProductFields = { sku: "SKU-1", name: "Widget", price: null, currency: null, lowStockThreshold: null };

function pathsOf(fields: ProductFields): string[] {
  try {
    normalizeProductFields(fields);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).errors!.map((e) => e.path);
  }
  throw new Error("expected a AppError");
}

describe("normalizeProductFields", () => {
  it("normalises the price to the currency's scale, exactly", () => {
    expect(normalizeProductFields({ ...base, price: "12.5", currency: "EUR" }).price).toBe("12.50");
    expect(normalizeProductFields({ ...base, price: 0.1, currency: "EUR" }).price).toBe("0.10");
    expect(normalizeProductFields({ ...base, price: "1200", currency: "JPY" }).price).toBe("1200");
    expect(normalizeProductFields(base).price).toBeNull();
  });

  it("keeps price and currency together", () => {
    expect(pathsOf({ ...base, price: "1.00" })).toEqual(["currency"]);
    expect(pathsOf({ ...base, currency: "EUR" })).toEqual(["price"]);
  });

  it("refuses unknown currencies, negative prices and prices finer than the currency", () => {
    expect(pathsOf({ ...base, price: "1", currency: "XYZ" })).toEqual(["currency"]);
    expect(pathsOf({ ...base, price: "-1.00", currency: "EUR" })).toEqual(["price"]);
    expect(pathsOf({ ...base, price: "12.50", currency: "JPY" })).toEqual(["price"]);
  });

  it("refuses blank or padded sku and name, and bad thresholds", () => {
    expect(pathsOf({ ...base, sku: "", name: " Widget" })).toEqual(["sku", "name"]);
    expect(pathsOf({ ...base, sku: "a\u0000b" })).toEqual(["sku"]);
    expect(pathsOf({ ...base, lowStockThreshold: -1 })).toEqual(["lowStockThreshold"]);
    expect(pathsOf({ ...base, lowStockThreshold: 1.5 })).toEqual(["lowStockThreshold"]);
  });

  it("accepts inner spaces and any visible characters in a sku", () => {
    expect(normalizeProductFields({ ...base, sku: "Blue Mug / 330ml" }).sku).toBe("Blue Mug / 330ml");
  });
});
