import { describe, expect, it } from "vitest";
import { fitsAmountColumn, maxAmountText, maxAmountUnits } from "./amounts.js";

describe("amounts an orders column holds (numeric(19, 4))", () => {
  it("allows 15 digits before the decimal point at every scale, either sign", () => {
    expect(maxAmountText(2)).toBe("999999999999999.99");
    expect(maxAmountText(0)).toBe("999999999999999");
    expect(maxAmountText(3)).toBe("999999999999999.999");
    expect(fitsAmountColumn(maxAmountUnits(2), 2)).toBe(true);
    expect(fitsAmountColumn(maxAmountUnits(2) + 1n, 2)).toBe(false);
    expect(fitsAmountColumn(-maxAmountUnits(2), 2)).toBe(true);
    expect(fitsAmountColumn(-maxAmountUnits(2) - 1n, 2)).toBe(false);
    // 999999999999999.99 × 2, the order that used to answer 500.
    expect(fitsAmountColumn(maxAmountUnits(2) * 2n, 2)).toBe(false);
  });
});
