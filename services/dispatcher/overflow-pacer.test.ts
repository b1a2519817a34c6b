import { describe, expect, it } from "vitest";
import { createOverflowPacer, PACER_MAX_DELAY_MS, PACER_MIN_DELAY_MS } from "./overflow-pacer.js";

describe("overflow pacer", () => {
  it("spreads a burst over the lane's pace instead of bringing it back at once", () => {
    const t = 1_000;
    const pacer = createOverflowPacer(() => t);
    // A lane holding 240, running 8 at once at 10 ms each: 1.25 ms per slot, 300 ms of backlog.
    const delays = Array.from({ length: 4 }, () => pacer.delayFor("h", 240, 10, 8));
    expect(delays).toEqual([301.25, 302.5, 303.75, 305]);
    // Another hook has its own pace; nothing comes back sooner than the minimum.
    expect(pacer.delayFor("other", 0, 80, 8)).toBe(PACER_MIN_DELAY_MS);
  });

  it("starts afresh once earlier reservations have passed, and never waits beyond the maximum", () => {
    let t = 0;
    const pacer = createOverflowPacer(() => t);
    for (let i = 0; i < 100; i++) pacer.delayFor("h", 0, 100, 1);
    t = 60_000;
    expect(pacer.delayFor("h", 0, 1_000, 1)).toBe(1_000);
    for (let i = 0; i < 100; i++) pacer.delayFor("slow", 10, 30_000, 1);
    expect(pacer.delayFor("slow", 10, 30_000, 1)).toBe(PACER_MAX_DELAY_MS);
  });
});
