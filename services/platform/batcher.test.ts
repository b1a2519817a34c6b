import { describe, expect, it } from "vitest";
import { createBatcher } from "./batcher.js";

describe("batcher", () => {
  it("sends one item at once when nothing else is going on", async () => {
    const batches: number[][] = [];
    const double = createBatcher(async (items: number[]) => (batches.push(items), items.map((i) => i * 2)));
    expect(await double(1)).toBe(2);
    expect(await double(2)).toBe(4);
    expect(batches).toEqual([[1], [2]]);
  });

  it("groups what arrives while batches are in flight, up to the limits", async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const echo = createBatcher(
      async (items: number[]) => {
        batches.push(items);
        await gate;
        return items;
      },
      { maxBatch: 3, maxConcurrent: 1 },
    );
    const first = echo(0);
    await Promise.resolve();
    const rest = [1, 2, 3, 4, 5, 6, 7].map((i) => echo(i));
    release();
    expect(await Promise.all([first, ...rest])).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(batches).toEqual([[0], [1, 2, 3], [4, 5, 6], [7]]);
  });

  it("fails every item of a failing batch and carries on with the next", async () => {
    let calls = 0;
    const flaky = createBatcher(async (items: number[]) => {
      calls += 1;
      if (calls === 1) throw new Error("down");
      return items;
    });
    const failed = await Promise.allSettled([flaky(1), flaky(2)]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(await flaky(3)).toBe(3);
  });
});
