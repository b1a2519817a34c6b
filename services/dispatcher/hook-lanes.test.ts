import { describe, expect, it } from "vitest";
import { createHookLanes, LANE_MIN_SAMPLES, type LanePlace } from "./hook-lanes.js";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** A run as a promise: its place is freed once the promise settles, fulfilled or rejected. */
function untilSettled<T>(run: (hookId: string, item: T) => Promise<unknown>) {
  return (hookId: string, item: T, place: LanePlace) => {
    run(hookId, item).then(
      () => place.free(),
      () => place.free(),
    );
  };
}

describe("hook lanes", () => {
  it("runs at most perHook per hook, queues up to the limit given, refuses the rest, and never mixes hooks", async () => {
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const release = gate();
    const lanes = createHookLanes<number>({
      perHook: 2,
      queuePerHook: 1,
      run: untilSettled(async (hook) => {
        running.set(hook, (running.get(hook) ?? 0) + 1);
        peak.set(hook, Math.max(peak.get(hook) ?? 0, running.get(hook)!));
        await release.opened;
        running.set(hook, running.get(hook)! - 1);
      }),
    });
    expect([1, 2, 3, 4].map((i) => lanes.submit("slow", i))).toEqual(["started", "started", "queued", "full"]);
    expect(lanes.submit("slow", 4, 2)).toBe("queued"); // a larger limit for this call
    // Another hook is not held back by the full lane.
    expect(lanes.submit("other", 5)).toBe("started");
    expect(lanes.backlog("slow")).toBe(4);
    expect(lanes.heldCount()).toBe(5);
    expect(lanes.activeHooks()).toBe(2);
    expect(lanes.held().sort()).toEqual([1, 2, 3, 4, 5]);
    release.open();
    await lanes.idle();
    expect(peak.get("slow")).toBe(2);
    expect(lanes.heldCount()).toBe(0);
    expect(lanes.activeHooks()).toBe(0);
  });

  it("reports a lane's average only after enough runs, and how long it has gone without finishing anything", async () => {
    let t = 0;
    const release = gate();
    const lanes = createHookLanes<number>({
      perHook: 2,
      queuePerHook: 100,
      now: () => t,
      run: untilSettled(async (_hook, i) => (i >= 99 ? release.opened : undefined)),
    });
    for (let i = 0; i < LANE_MIN_SAMPLES - 1; i++) lanes.submit("h", i);
    await lanes.idle();
    expect(lanes.averageMs("h")).toBeUndefined();
    lanes.submit("h", LANE_MIN_SAMPLES);
    await lanes.idle();
    expect(lanes.averageMs("h")).toBe(0);
    // A straggler among runs that keep finishing: the lane is not stalled.
    lanes.submit("h", 99);
    t = 7_000;
    lanes.submit("h", 1);
    await Promise.resolve();
    await Promise.resolve();
    expect(lanes.stalledMs("h")).toBe(0);
    // Nothing finishes any more: stalled since the last finish.
    lanes.submit("h", 100);
    t = 9_000;
    expect(lanes.stalledMs("h")).toBe(2_000);
    expect(lanes.stalledMs("nothing")).toBe(0);
    release.open();
    await lanes.idle();
  });

  it("drains queued items on request, leaving the running ones", async () => {
    const release = gate();
    const lanes = createHookLanes<string>({ perHook: 1, queuePerHook: 5, run: untilSettled(() => release.opened) });
    for (const item of ["a", "b", "c"]) lanes.submit("h", item);
    expect(lanes.heldCount()).toBe(3);
    expect(lanes.drainQueued()).toEqual(["b", "c"]);
    expect(lanes.heldCount()).toBe(1);
    expect(lanes.held()).toEqual(["a"]);
    release.open();
    await lanes.idle();
    expect(lanes.heldCount()).toBe(0);
  });

  it("keeps a lane going when a run throws", async () => {
    const done: number[] = [];
    const lanes = createHookLanes<number>({
      perHook: 1,
      queuePerHook: 5,
      run: untilSettled(async (_hook, i) => {
        if (i === 1) throw new Error("boom");
        done.push(i);
      }),
    });
    for (const i of [1, 2, 3]) lanes.submit("h", i);
    await lanes.idle();
    expect(done).toEqual([2, 3]);
  });

  it("keeps order through a long queue", async () => {
    const done: number[] = [];
    const lanes = createHookLanes<number>({ perHook: 1, queuePerHook: 5_000, run: untilSettled(async (_hook, i) => void done.push(i)) });
    for (let i = 0; i < 3_000; i++) lanes.submit("h", i);
    await lanes.idle();
    expect(done).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
  });

  it("moves on from a place freed within its run or a run that throws, however long the queue", async () => {
    const done: number[] = [];
    let first: LanePlace | undefined;
    const lanes = createHookLanes<number>({
      perHook: 1,
      queuePerHook: 100_000,
      run: (_hook, i, place) => {
        if (i === 0) {
          first = place; // holds the lane while the rest queue behind it
          return;
        }
        if (i === 1) throw new Error("boom"); // thrown, not rejected
        done.push(i);
        place.free(); // before run returns: an open breaker's hand-back does this
        place.free(); // a second free does nothing
      },
    });
    for (let i = 0; i < 50_000; i++) lanes.submit("h", i);
    expect(lanes.heldCount()).toBe(50_000);
    // Each queued item ends within its own run: started one inside the other, they would nest 50,000 deep.
    first!.free();
    await lanes.idle();
    expect(done).toHaveLength(49_998);
    expect(done.slice(0, 2)).toEqual([2, 3]);
    expect(done.at(-1)).toBe(49_999);
    expect(lanes.heldCount()).toBe(0);
  });
});
