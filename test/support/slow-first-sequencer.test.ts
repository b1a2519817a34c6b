// The suite's file order: the long-running files first whatever their size, the rest as vitest orders them.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SLOW_FILES, slowRank } from "./slow-first-sequencer.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the slow-first sequencer", () => {
  it("names files that exist, so a rename cannot silently drop one back to the end", () => {
    for (const file of SLOW_FILES) expect(existsSync(path.join(ROOT, file)), file).toBe(true);
  });

  it("ranks the named files in their order and every other file after them", () => {
    expect(slowRank(path.join(ROOT, "test/chaos-network.test.ts"))).toBe(0);
    expect(slowRank(path.join(ROOT, "test/chaos.test.ts"))).toBe(3);
    expect(slowRank(path.join(ROOT, "test/orders-insert.test.ts"))).toBe(SLOW_FILES.length);
    // Only whole path segments match: a file whose name ends like a slow one is not it.
    expect(slowRank(path.join(ROOT, "test/other-chaos.test.ts"))).toBe(SLOW_FILES.length);
  });
});
