import { describe, expect, it } from "vitest";
import { createBatcher } from "./batcher.js";

describe("batcher", () => {
  it("sends one item at once when nothing else is going on", async () => {
    const batches: number[][] = [];
    const double = createBatcher(async (items: number[]) => {
      batches.push(items);
      return items.map((i) => i * 2);
    });
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

  it("tries a failing batch again item by item: only the item that fails alone is rejected", async () => {
    const runs: number[][] = [];
    const picky = createBatcher(async (items: number[]) => {
      runs.push(items);
      if (items.includes(2)) throw new Error("2 is poison");
      return items.map((i) => i * 10);
    });
    const settled = await Promise.allSettled([picky(1), picky(2), picky(3)]);
    expect(settled.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(settled.map((r) => (r.status === "fulfilled" ? r.value : (r.reason as Error).message))).toEqual([10, "2 is poison", 30]);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
    expect(await picky(4)).toBe(40); // and carries on with the next
  });

  it("rejects a lone item that fails", async () => {
    const down = createBatcher(async (_items: number[]): Promise<number[]> => {
      throw new Error("down");
    });
    await expect(down(1)).rejects.toThrow("down");
  });
});

describe("batcher with batches in flight side by side", () => {
  /** Two batches out at once, the second answering first; the order items were answered in. */
  async function answeredOrder(inOrder: boolean): Promise<number[]> {
    const gates: (() => void)[] = [];
    const echo = createBatcher(
      async (items: number[]) => {
        await new Promise<void>((resolve) => gates.push(resolve));
        return items;
      },
      { maxBatch: 2, maxConcurrent: 2, inOrder },
    );
    const order: number[] = [];
    const all = [1, 2, 3, 4].map((i) => echo(i).then((value) => order.push(value)));
    while (gates.length < 2) await new Promise((resolve) => setImmediate(resolve));
    gates[1](); // the second batch's statement comes back first
    await new Promise((resolve) => setImmediate(resolve));
    gates[0]();
    await Promise.all(all);
    return order;
  }

  it("answers batches in the order they went when asked to, even when a later one came back first", async () => {
    expect(await answeredOrder(true)).toEqual([1, 2, 3, 4]);
  });

  it("otherwise answers each batch as soon as it is back", async () => {
    expect(await answeredOrder(false)).toEqual([3, 4, 1, 2]);
  });
});
