import { describe, expect, it } from "vitest";
import { derivedId, hasPrefix, ID_PREFIXES, newId, randomHex } from "./ids.js";

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

describe("derivedId", () => {
  it("is the same for the same seed and time, a valid id of the type, and differs for another seed", () => {
    const at = Date.parse("2026-11-24T10:00:00Z");
    const id = derivedId("evt", "INGRESS:42", at);
    expect(id).toBe(derivedId("evt", "INGRESS:42", at));
    expect(hasPrefix(id, "evt")).toBe(true);
    expect(derivedId("evt", "INGRESS:43", at)).not.toBe(id);
    expect(derivedId("evt", "INGRESS:42", at + 1) > id).toBe(true);
  });
});

describe("randomHex", () => {
  it("gives the asked number of bytes as hex, different each time, across pool refills", () => {
    const seen = new Set<string>();
    // 4096-byte pool: 600 × 16 bytes crosses two refills.
    for (let i = 0; i < 600; i++) {
      const hex = randomHex(16);
      expect(hex).toMatch(/^[0-9a-f]{32}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(600);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
  });
});
