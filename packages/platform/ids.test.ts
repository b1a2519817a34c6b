import { describe, expect, it } from "vitest";
import { hasPrefix, ID_PREFIXES, newId } from "./ids.js";

describe("newId", () => {
  it("has the type prefix and a 26-character lowercase body", () => {
    expect(newId("prd")).toMatch(/^prd_[0-9a-z]{26}$/);
    for (const prefix of ID_PREFIXES) expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9a-z]{26}$`));
  });

  it("is unique and sorts in creation order", () => {
    const ids = Array.from({ length: 1000 }, () => newId("ord"));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
  });

  it("sorts by creation time across a clock tick", async () => {
    const first = newId("evt");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(newId("evt") > first).toBe(true);
  });
});

describe("hasPrefix", () => {
  it("recognises ids of the given type only", () => {
    const id = newId("ord");
    expect(hasPrefix(id, "ord")).toBe(true);
    expect(hasPrefix(id, "hook")).toBe(false);
    expect(hasPrefix(newId("hook"), "hook")).toBe(true);
  });

  it("rejects strings that only look like ids", () => {
    const body = newId("ord").slice(4);
    expect(hasPrefix(`ord_${body.slice(1)}`, "ord")).toBe(false); // too short
    expect(hasPrefix(`ord_${body}x`, "ord")).toBe(false); // too long
    expect(hasPrefix(`ORD_${body}`, "ord")).toBe(false);
    expect(hasPrefix(`ord_${body.toUpperCase()}`, "ord")).toBe(false);
    expect(hasPrefix(`ord_${"u".repeat(26)}`, "ord")).toBe(false); // not Crockford base32
    expect(hasPrefix("ord_", "ord")).toBe(false);
    expect(hasPrefix("", "ord")).toBe(false);
  });
});
