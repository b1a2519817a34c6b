import { describe, expect, it } from "vitest";
import { SlotSet } from "./slot-set.js";

describe("SlotSet", () => {
  it("holds what was added until its slot is deleted, and reuses freed slots", () => {
    const set = new SlotSet<string>();
    const a = set.add("a");
    const b = set.add("b");
    set.add("c");
    set.delete(b);
    expect(set.values()).toEqual(["a", "c"]);
    expect(set.size).toBe(2);
    expect(set.add("d")).toBe(b);
    expect(set.values()).toEqual(["a", "d", "c"]);
    set.delete(a);
    set.delete(a); // a second delete of an emptied slot changes nothing
    expect(set.size).toBe(2);
    expect(set.values()).toEqual(["d", "c"]);
  });

  it("grows only as far as the most items held at once", () => {
    const set = new SlotSet<number>();
    for (let round = 0; round < 100; round++) {
      const slots = [set.add(round), set.add(round + 1), set.add(round + 2)];
      for (const slot of slots) set.delete(slot);
    }
    expect(set.size).toBe(0);
    expect(Math.max(...[set.add(1), set.add(2), set.add(3), set.add(4)])).toBe(3);
  });
});
