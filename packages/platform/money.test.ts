import { describe, expect, it } from "vitest";
import { AppError } from "./errors.js";
import { currencyScale, formatMinorUnits, formatStoredAmount, isCurrency, normalizeAmount, toMinorUnits } from "./money.js";

function validationErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("expected a AppError");
}

describe("currencies", () => {
  it("knows ISO 4217 codes and rejects made-up ones", () => {
    expect(isCurrency("EUR")).toBe(true);
    expect(isCurrency("JPY")).toBe(true);
    expect(isCurrency("ABC")).toBe(false);
    expect(isCurrency("")).toBe(false);
  });

  it("uses each currency's minor-unit scale", () => {
    expect(currencyScale("EUR")).toBe(2);
    expect(currencyScale("USD")).toBe(2);
    expect(currencyScale("JPY")).toBe(0);
    expect(currencyScale("BHD")).toBe(3);
  });
});

describe("normalizeAmount", () => {
  it("pads strings to the currency scale", () => {
    expect(normalizeAmount("12.5", "EUR")).toBe("12.50");
    expect(normalizeAmount("12", "EUR")).toBe("12.00");
    expect(normalizeAmount("0", "EUR")).toBe("0.00");
    expect(normalizeAmount("12.500", "EUR")).toBe("12.50");
  });

  it("accepts exact JSON numbers without float artefacts", () => {
    expect(normalizeAmount(0.1, "EUR")).toBe("0.10");
    expect(normalizeAmount(12.5, "EUR")).toBe("12.50");
    expect(normalizeAmount(19.99, "EUR")).toBe("19.99");
    expect(normalizeAmount(1200, "JPY")).toBe("1200");
  });

  it("formats JPY without decimals and BHD with three", () => {
    expect(normalizeAmount("1200", "JPY")).toBe("1200");
    expect(normalizeAmount("1200.00", "JPY")).toBe("1200");
    expect(normalizeAmount("1.5", "BHD")).toBe("1.500");
    expect(normalizeAmount("0.005", "BHD")).toBe("0.005");
  });

  it("keeps negative amounts negative", () => {
    expect(normalizeAmount("-12.5", "EUR")).toBe("-12.50");
    expect(normalizeAmount(-0.1, "EUR")).toBe("-0.10");
    expect(normalizeAmount("-0.05", "EUR")).toBe("-0.05");
  });

  it("keeps large amounts exact", () => {
    expect(normalizeAmount("123456789012345.67", "EUR")).toBe("123456789012345.67");
    expect(normalizeAmount("999999999999999.99", "EUR")).toBe("999999999999999.99");
    expect(toMinorUnits("123456789012345.67", 2)).toBe(12345678901234567n);
  });

  it("rejects more decimals than the currency has, naming the path", () => {
    const error = validationErrorOf(() => normalizeAmount("12.345", "EUR", "orderItems.0.price"));
    expect(error.status).toBe(422);
    expect(error.errors).toEqual([{ path: "orderItems.0.price", message: expect.stringContaining("2") }]);
    expect(() => normalizeAmount("1.5", "JPY")).toThrow(AppError);
    expect(() => normalizeAmount("1.2345", "BHD")).toThrow(AppError);
    // 0.1 + 0.2 is 0.30000000000000004: not exact at two decimals
    expect(() => normalizeAmount(0.1 + 0.2, "EUR")).toThrow(AppError);
  });

  it("rejects exponent forms, non-finite numbers and non-decimal text", () => {
    for (const bad of [1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, "1e21", "1E3", "abc", "", "12,50", "1.2.3", ".5", "5.", "+5", "0x10"]) {
      const error = validationErrorOf(() => normalizeAmount(bad, "EUR", "price"));
      expect(error.errors?.[0].path).toBe("price");
    }
  });

  it("defaults the error path to amount", () => {
    expect(validationErrorOf(() => toMinorUnits("nope", 2)).errors?.[0].path).toBe("amount");
  });
});

describe("formatMinorUnits", () => {
  it("places the decimal point by scale", () => {
    expect(formatMinorUnits(1250n, 2)).toBe("12.50");
    expect(formatMinorUnits(5n, 2)).toBe("0.05");
    expect(formatMinorUnits(-5n, 2)).toBe("-0.05");
    expect(formatMinorUnits(0n, 3)).toBe("0.000");
    expect(formatMinorUnits(1200n, 0)).toBe("1200");
  });

  it("round-trips through toMinorUnits", () => {
    for (const text of ["0.01", "-7.30", "12.50", "100000000000000.00"]) {
      expect(formatMinorUnits(toMinorUnits(text, 2), 2)).toBe(text);
    }
  });
});

describe("formatStoredAmount", () => {
  it("formats numeric(19,4) column values at the currency scale", () => {
    expect(formatStoredAmount("12.5000", "EUR")).toBe("12.50");
    expect(formatStoredAmount("1200.0000", "JPY")).toBe("1200");
    expect(formatStoredAmount("1.5000", "BHD")).toBe("1.500");
    expect(formatStoredAmount("-3.1000", "EUR")).toBe("-3.10");
    expect(formatStoredAmount("123456789012345.6700", "EUR")).toBe("123456789012345.67");
  });

  it("uses two decimals when there is no currency", () => {
    expect(formatStoredAmount("7.0000", null)).toBe("7.00");
  });

  it("never fails on a stored value finer than the currency scale; it keeps the digits", () => {
    expect(formatStoredAmount("12.3450", null)).toBe("12.345");
    expect(formatStoredAmount("5.2500", "JPY")).toBe("5.25");
  });
});
