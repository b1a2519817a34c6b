import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE, maxAttempts, parseRetryAfter, parseRetrySchedule, retryDelay } from "./retry-schedule.js";

const S = 1_000;
const M = 60 * S;
const H = 60 * M;

describe("parseRetrySchedule", () => {
  it("reads the default as API.md's delays: 8 attempts in all", () => {
    const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
    expect(schedule).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(maxAttempts(schedule)).toBe(8);
  });

  it("accepts ms, s, m and h with spaces around the commas", () => {
    expect(parseRetrySchedule("50ms, 100ms,2s ,1m,1h")).toEqual([50, 100, 2 * S, M, H]);
  });

  it("refuses what is not a list of delays", () => {
    for (const bad of ["", "5", "5x", "-5s", "1.5s", "5s,,5s", "5 s", "200h"]) expect(() => parseRetrySchedule(bad), bad).toThrow();
  });
});

describe("retryDelay", () => {
  const schedule = [5 * S, 5 * M];

  it("stays within ±20 % of the step", () => {
    expect(retryDelay(schedule, 1, { random: () => 0 })).toBe(4 * S);
    expect(retryDelay(schedule, 1, { random: () => 1 })).toBe(6 * S);
    expect(retryDelay(schedule, 2, { random: () => 0.5 })).toBe(5 * M);
    for (let i = 0; i < 200; i++) {
      const delay = retryDelay(schedule, 1)!;
      expect(delay).toBeGreaterThanOrEqual(4 * S);
      expect(delay).toBeLessThanOrEqual(6 * S);
    }
  });

  it("answers null after the last step", () => {
    expect(retryDelay(schedule, 3)).toBeNull();
    expect(retryDelay(schedule, 0)).toBeNull();
  });

  it("honours Retry-After within the step's band", () => {
    expect(retryDelay(schedule, 1, { retryAfterMs: 5_500 })).toBe(5_500);
    expect(retryDelay(schedule, 1, { retryAfterMs: 0 })).toBe(4 * S);
    expect(retryDelay(schedule, 1, { retryAfterMs: H })).toBe(6 * S);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  it("reads delta-seconds and HTTP dates", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
  });
  it("ignores what it cannot read", () => {
    for (const bad of [undefined, "", "soon", "-5", "1.5"]) expect(parseRetryAfter(bad, now)).toBeUndefined();
  });
});
