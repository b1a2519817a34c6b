import { describe, expect, it } from "vitest";
import {
  HELD_BACK_FIRST_DELAY_MS,
  HELD_BACK_MAX_DELAY_MS,
  heldBackDelay,
  MIN_QUEUE_PER_HOOK,
  paceOf,
  queueLimit,
  spreadDelay,
  STUCK_PACE_MS,
} from "./lane-policy.js";

const stats = (averageMs: number | undefined, stalledMs = 0, activeHooks = 1) => ({ averageMs, stalledMs, activeHooks });

describe("queueLimit", () => {
  it("gives a fast or new lane its share, leaving room for one more hook", () => {
    expect(queueLimit(stats(undefined), 8, 8192, 30_000)).toBe(4096);
    expect(queueLimit(stats(5, 3, 3), 8, 8192, 30_000)).toBe(2048);
  });

  it("gives a slow lane what it finishes within the ack wait's 30 s", () => {
    expect(queueLimit(stats(1_000), 8, 8192, 30_000)).toBe(240);
    expect(queueLimit(stats(4_000), 1, 8192, 30_000)).toBe(7);
    expect(queueLimit(stats(40), 8, 8192, 30_000)).toBe(4096); // a busy fast lane: its share
  });

  it("paces a lane by how long it has gone without finishing anything once that is longer than its average", () => {
    expect(paceOf(stats(undefined, 50))).toBeUndefined(); // nothing known yet
    expect(paceOf(stats(undefined, 1_000))).toBe(1_000); // hanging before its first answer
    expect(paceOf(stats(20, 3_000))).toBe(3_000); // a fast receiver that started to hang
    expect(queueLimit(stats(20, 3_000), 8, 8192, 30_000)).toBe(80);
  });

  it("gives a stuck lane next to nothing, even before anything finished", () => {
    expect(queueLimit(stats(undefined, STUCK_PACE_MS), 8, 8192, 30_000)).toBe(MIN_QUEUE_PER_HOOK);
    expect(queueLimit(stats(STUCK_PACE_MS, 0), 8, 8192, 30_000)).toBe(MIN_QUEUE_PER_HOOK);
  });
});

describe("spreadDelay", () => {
  it("adds up to half again (at least 250 ms) of jitter", () => {
    expect(spreadDelay(1_000, () => 0)).toBe(1_000);
    expect(spreadDelay(1_000, () => 1)).toBe(1_500);
    expect(spreadDelay(100, () => 1)).toBe(350);
  });
});

describe("heldBackDelay", () => {
  it("waits for the breaker, and twice as long each time the delivery finds it open again, up to half an hour", () => {
    expect(heldBackDelay(4_000, 1)).toBe(HELD_BACK_FIRST_DELAY_MS); // its own first wait is longer than the breaker's
    expect(heldBackDelay(60_000, 1)).toBe(60_000); // the breaker's wait is longer
    expect(heldBackDelay(1_000, 2)).toBe(10_000);
    expect(heldBackDelay(1_000, 8)).toBe(640_000);
    expect(heldBackDelay(1_000, 10)).toBe(HELD_BACK_MAX_DELAY_MS);
    expect(heldBackDelay(1_000, 10_000)).toBe(HELD_BACK_MAX_DELAY_MS);
  });
});
