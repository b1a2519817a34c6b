import { describe, expect, it } from "vitest";
import { childTraceparent } from "./context.js";

const PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const OTHER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

describe("childTraceparent", () => {
  it("keeps the caller's trace id and flags with a new span id, call after call with the same parent", () => {
    const children = [childTraceparent(PARENT), childTraceparent(PARENT), childTraceparent(PARENT)];
    for (const child of children) expect(child).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(new Set(children.map((child) => child.split("-")[2])).size).toBe(3);
  });

  it("answers each parent in turn, and a new unsampled trace for an invalid one that follows a valid one", () => {
    expect(childTraceparent(PARENT)).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(childTraceparent(OTHER)).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-00$/);
    for (const invalid of ["00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "garbage"]) {
      const child = childTraceparent(invalid);
      expect(child).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
      expect(child).not.toContain("4bf92f3577b34da6a3ce929d0e0e4736");
      expect(child).not.toContain("0af7651916cd43dd8448eb211c80319c");
    }
    expect(childTraceparent(PARENT)).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
  });
});
