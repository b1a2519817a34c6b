import { describe, expect, it } from "vitest";
import { collect } from "./pagination.js";

/** A list of `total` items served in pages of at most `max`. */
function pages(total: number, max = 100) {
  const asked: { limit: number; cursor?: string }[] = [];
  const page = async (query: { limit: number; cursor?: string }) => {
    asked.push(query);
    const start = query.cursor ? Number(query.cursor) : 0;
    const end = Math.min(total, start + Math.min(query.limit, max));
    return { data: Array.from({ length: end - start }, (_, i) => start + i), nextCursor: end < total ? String(end) : null };
  };
  return { asked, page };
}

describe("collect", () => {
  it("follows cursors until the limit, asking for no more than it needs", async () => {
    const { asked, page } = pages(250);
    const items = await collect(230, page);
    expect(items).toHaveLength(230);
    expect(items[229]).toBe(229);
    expect(asked).toEqual([{ limit: 100 }, { limit: 100, cursor: "100" }, { limit: 30, cursor: "200" }]);
  });

  it("stops at the end of the list", async () => {
    const { asked, page } = pages(7);
    expect(await collect(100, page)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(asked).toHaveLength(1);
  });
});
