import { describe, expect, it } from "vitest";
import { backoffMs } from "./backoff.js";

describe("backoffMs", () => {
  it("doubles from the base after each failure and stops at the cap", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, { baseMs: 500, maxMs: 10_000 }));
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it("stays finite after a very long run of failures", () => {
    expect(backoffMs(10_000, { baseMs: 500, maxMs: 30_000 })).toBe(30_000);
  });

  it("draws the jittered part at random, within its bounds", () => {
    expect(backoffMs(2, { baseMs: 100, maxMs: 10_000, jitter: 0.5, random: () => 0 })).toBe(200);
    expect(backoffMs(2, { baseMs: 100, maxMs: 10_000, jitter: 0.5, random: () => 0.999999 })).toBeCloseTo(400, 3);
  });
});
