import { describe, expect, it } from "vitest";
import { clearedSessionCookie, readSessionCookie, sessionCookie } from "./session-cookie.js";

const VALUE = "A".repeat(43);

describe("session cookie", () => {
  it("carries every attribute and a Max-Age counted to the session's end", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(sessionCookie(VALUE, "2026-01-31T00:00:00Z", now)).toBe(
      `waybill_session=${VALUE}; Max-Age=2592000; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict`,
    );
    expect(clearedSessionCookie()).toBe("waybill_session=; Max-Age=0; Path=/v1/auth; HttpOnly; Secure; SameSite=Strict");
  });

  it("reads its own value among other cookies and ignores malformed ones", () => {
    expect(readSessionCookie(`theme=dark; waybill_session=${VALUE}; x=1`)).toBe(VALUE);
    expect(readSessionCookie("waybill_session=short")).toBeUndefined();
    expect(readSessionCookie(`waybill_session_other=${VALUE}`)).toBeUndefined();
    expect(readSessionCookie(undefined)).toBeUndefined();
  });
});
