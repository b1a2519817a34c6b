import { describe, expect, it } from "vitest";
import { expiryOf } from "./expiry.js";

const NOW = Date.parse("2026-11-26T12:00:00Z");

describe("expiryOf", () => {
  it("is 90 days from now when not given", () => {
    expect(expiryOf(undefined, NOW)).toBe("2027-02-24T12:00:00.000Z");
  });
  it("takes days, hours and minutes, or an ISO 8601 time", () => {
    expect(expiryOf("30d", NOW)).toBe("2026-12-26T12:00:00.000Z");
    expect(expiryOf("12h", NOW)).toBe("2026-11-27T00:00:00.000Z");
    expect(expiryOf("45m", NOW)).toBe("2026-11-26T12:45:00.000Z");
    expect(expiryOf("2027-01-01T00:00:00Z", NOW)).toBe("2027-01-01T00:00:00.000Z");
  });
  it("refuses what is not a time or is past", () => {
    expect(() => expiryOf("soon", NOW)).toThrow("a duration such as 90d");
    expect(() => expiryOf("2020-01-01", NOW)).toThrow("in the future");
    expect(() => expiryOf("0d", NOW)).toThrow("in the future");
  });
});
