import { describe, expect, it } from "vitest";
import { jsonPage } from "./json-page.js";

const bytes = (text: string) => Buffer.from(text);

describe("jsonPage", () => {
  it("wraps a JSON array a service wrote, with its cursor", () => {
    const page = jsonPage(bytes('[{"id":"ord_1","note":"café"}]'), "b3JkXzE");
    expect(JSON.parse(page.toString("utf8"))).toEqual({ data: [{ id: "ord_1", note: "café" }], nextCursor: "b3JkXzE" });
  });

  it("joins items' JSON into the page's array, and says when there is no next page", () => {
    expect(JSON.parse(jsonPage([bytes('{"a":1}'), bytes('{"b":"ü"}'), bytes("{}")], null).toString("utf8"))).toEqual({
      data: [{ a: 1 }, { b: "ü" }, {}],
      nextCursor: null,
    });
    expect(jsonPage([], undefined).toString("utf8")).toBe('{"data":[],"nextCursor":null}');
  });
});
