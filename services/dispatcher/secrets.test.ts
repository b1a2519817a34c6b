import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSecretBox, generateHookSecret, generateSecretKey, parseSecretKey, SecretUnavailableError } from "./secrets.js";

const box = createSecretBox(randomBytes(32));

describe("generateHookSecret", () => {
  it('is "whsec_" + base64 of 32 random bytes', () => {
    const secret = generateHookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(generateHookSecret()).not.toBe(secret);
  });
});

describe("secret box", () => {
  it("opens what it sealed for the same hook, and names the key setting when it cannot", () => {
    const secret = generateHookSecret();
    const sealed = box.seal(secret, "hook_a");
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, "hook_a")).toBe(secret);
    expect(() => box.open(sealed, "hook_b")).toThrow(SecretUnavailableError);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, "hook_a")).toThrow(/WEBHOOK_SECRET_KEY/);
  });

  it("takes keys of exactly 32 bytes", () => {
    expect(parseSecretKey(generateSecretKey())).toHaveLength(32);
    expect(() => parseSecretKey(randomBytes(16).toString("base64"))).toThrow(/WEBHOOK_SECRET_KEY/);
  });
});
