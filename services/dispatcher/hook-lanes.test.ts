import { describe, expect, it } from "vitest";
import { createHookLanes } from "./hook-lanes.js";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("hook lanes", () => {
  it("runs at most perHook per hook, queues a few more, refuses the rest, and never mixes hooks", async () => {
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const release = gate();
    const lanes = createHookLanes<number>({
      perHook: 2,
      queuePerHook: 1,
      run: async (hook) => {
        running.set(hook, (running.get(hook) ?? 0) + 1);
        peak.set(hook, Math.max(peak.get(hook) ?? 0, running.get(hook)!));
        await release.opened;
        running.set(hook, running.get(hook)! - 1);
      },
    });
    expect([1, 2, 3, 4].map((i) => lanes.submit("slow", i))).toEqual(["started", "started", "queued", "full"]);
    // Another hook is not held back by the full lane.
    expect(lanes.submit("other", 5)).toBe("started");
    expect(lanes.backlog("slow")).toBe(3);
    expect(lanes.heldCount()).toBe(4);
    expect(lanes.held().sort()).toEqual([1, 2, 3, 5]);
    release.open();
    await lanes.idle();
    expect(peak.get("slow")).toBe(2);
    expect(lanes.heldCount()).toBe(0);
    expect(lanes.averageMs("slow")).toEqual(expect.any(Number));
  });

  it("drains queued items on request and wakes whoever waits for room", async () => {
    const release = gate();
    const lanes = createHookLanes<string>({ perHook: 1, queuePerHook: 5, run: () => release.opened });
    for (const item of ["a", "b", "c"]) lanes.submit("h", item);
    let roomy = false;
    const waiting = lanes.whenBelow(2).then(() => (roomy = true));
    expect(lanes.drainQueued()).toEqual(["b", "c"]);
    await waiting;
    expect(roomy).toBe(true);
    release.open();
    await lanes.idle();
  });

  it("keeps a lane going when a run throws", async () => {
    const done: number[] = [];
    const lanes = createHookLanes<number>({
      perHook: 1,
      queuePerHook: 5,
      run: async (_hook, i) => {
        if (i === 1) throw new Error("boom");
        done.push(i);
      },
    });
    [1, 2, 3].forEach((i) => lanes.submit("h", i));
    await lanes.idle();
    expect(done).toEqual([2, 3]);
  });
});
