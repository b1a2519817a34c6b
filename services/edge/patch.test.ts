import { describe, expect, it } from "vitest";
import { nullsFor, toPatchMessage, withoutNulls } from "./patch.js";

describe("toPatchMessage", () => {
  it("sends values as fields and nulls by name", () => {
    expect(toPatchMessage({ name: "Ada", email: null, phone: undefined, address: { city: "X" } })).toEqual({
      fields: { name: "Ada", address: { city: "X" } },
      clearedFields: ["email"],
    });
  });
});

describe("nullsFor", () => {
  it("turns absent optional fields into null and keeps the rest", () => {
    expect(nullsFor({ id: "a", email: undefined as string | undefined, phone: "1" as string | undefined }, ["email", "phone"])).toEqual({
      id: "a",
      email: null,
      phone: "1",
    });
  });
});

describe("withoutNulls", () => {
  it("drops null fields", () => {
    expect(withoutNulls({ line1: "a", line2: null, city: "b" })).toEqual({ line1: "a", city: "b" });
  });
});
