import { describe, expect, it } from "vitest";
import { AppError } from "./errors.js";
import { newId } from "./ids.js";
import { DEFAULT_PAGE_LIMIT, decodeCursor, encodeCursor, MAX_PAGE_LIMIT, pageLimit, toPage } from "./pagination.js";

describe("cursors", () => {
  it("round-trip an id through an opaque URL-safe string", () => {
    const id = newId("ord");
    const cursor = encodeCursor(id);
    expect(cursor).not.toContain(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toBe(id);
  });

  it("treat a missing cursor as the first page", () => {
    expect(decodeCursor(undefined)).toBeNull();
    expect(decodeCursor(null)).toBeNull();
    expect(decodeCursor("")).toBeNull();
  });

  it.each(["garbage!!", "abc", encodeCursor("not an id"), encodeCursor("ord_short"), encodeCursor(`${newId("ord")}' OR 1=1`)])(
    "reject %j with 400 invalid_cursor",
    (cursor) => {
      let caught: unknown;
      try {
        decodeCursor(cursor);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(AppError);
      expect((caught as AppError).status).toBe(400);
      expect((caught as AppError).code).toBe("invalid_cursor");
    },
  );
});

describe("toPage", () => {
  const rows = Array.from({ length: 5 }, () => ({ id: newId("ord") })).reverse();

  it("returns limit rows and a cursor to the last one when more exist", () => {
    const page = toPage(rows.slice(0, 3), 2);
    expect(page.data).toEqual(rows.slice(0, 2));
    expect(page.nextCursor).not.toBeNull();
    expect(decodeCursor(page.nextCursor)).toBe(rows[1].id);
  });

  it("has no next cursor on the last page", () => {
    expect(toPage(rows.slice(0, 2), 2)).toEqual({ data: rows.slice(0, 2), nextCursor: null });
    expect(toPage(rows.slice(0, 1), 20)).toEqual({ data: rows.slice(0, 1), nextCursor: null });
    expect(toPage([], 20)).toEqual({ data: [], nextCursor: null });
  });
});

describe("pageLimit", () => {
  it("defaults an unset (0) limit and keeps any within 1..100", () => {
    expect(pageLimit(0)).toBe(DEFAULT_PAGE_LIMIT);
    expect(pageLimit(1)).toBe(1);
    expect(pageLimit(250)).toBe(MAX_PAGE_LIMIT);
    expect(pageLimit(-3)).toBe(1);
  });
});
