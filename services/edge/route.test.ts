import { describe, expect, it } from "vitest";
import { canonicalJson } from "./route.js";

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    const a = { b: 1, a: { d: [3, { y: 1, x: 2 }], c: null } };
    const b = { a: { c: null, d: [3, { x: 2, y: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":null,"d":[3,{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });

  it("writes scalars as JSON does, and keeps strings and numbers apart", () => {
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
    expect(canonicalJson({ price: "1" })).not.toBe(canonicalJson({ price: 1 }));
    expect(canonicalJson({ "": 1, "\u00e9": 2, Z: 3 })).toBe('{"":1,"Z":3,"é":2}');
  });
});
