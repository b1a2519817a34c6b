import { describe, expect, it } from "vitest";
import { AppError } from "@waybill/platform/errors.js";
import { checkHookFields, hookUrlProblem } from "./hooks.js";

describe("hookUrlProblem", () => {
  it("accepts absolute http and https URLs", () => {
    for (const url of ["https://example.com/hooks", "http://127.0.0.1:8080/x?y=1", "https://[2001:db8::1]/"]) expect(hookUrlProblem(url), url).toBeUndefined();
  });
  it("refuses other schemes, relative URLs, credentials and overlong URLs", () => {
    for (const url of [
      "ftp://example.com/",
      "file:///etc/passwd",
      "/relative",
      "example.com",
      "https://u:p@example.com/",
      `https://example.com/${"a".repeat(2100)}`,
    ]) {
      expect(hookUrlProblem(url), url).toEqual(expect.any(String));
    }
  });
});

describe("checkHookFields", () => {
  it("lists every field at fault", () => {
    try {
      checkHookFields({ name: " padded ", url: "ftp://x", on: "order.nope", status: "stopped" });
      throw new Error("expected a AppError");
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).errors!.map((e) => e.path)).toEqual(["name", "url", "on", "status"]);
    }
  });
  it("checks only the fields present", () => {
    expect(() => checkHookFields({ status: "paused" })).not.toThrow();
    expect(() => checkHookFields({ on: "order.status.changed" })).not.toThrow();
  });
});
