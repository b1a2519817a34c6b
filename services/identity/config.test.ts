import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadIdentityConfig } from "./config.js";

describe("identity config", () => {
  it("takes IDENTITY_SECRET_KEY as the base64 of 32 bytes, optional outside production", () => {
    const key = randomBytes(32).toString("base64");
    expect(loadIdentityConfig({ IDENTITY_SECRET_KEY: key }).IDENTITY_SECRET_KEY).toBe(key);
    expect(loadIdentityConfig({}).IDENTITY_SECRET_KEY).toBeUndefined();
    expect(() => loadIdentityConfig({ IDENTITY_SECRET_KEY: randomBytes(16).toString("base64") })).toThrow(/IDENTITY_SECRET_KEY/);
  });

  it("refuses to start in production without IDENTITY_SECRET_KEY", () => {
    expect(() => loadIdentityConfig({ NODE_ENV: "production" })).toThrow(/IDENTITY_SECRET_KEY.*required/s);
    expect(loadIdentityConfig({ NODE_ENV: "production", IDENTITY_SECRET_KEY: randomBytes(32).toString("base64") }).NODE_ENV).toBe("production");
  });
});
