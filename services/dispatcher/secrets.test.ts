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

describe("secret box (AES-256-GCM)", () => {
  it("opens what it sealed, and the sealed text does not contain the secret", () => {
    const secret = generateHookSecret();
    const sealed = box.seal(secret, "hook_a");
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealed).toMatch(/^v1\./);
    expect(box.open(sealed, "hook_a")).toBe(secret);
    expect(box.seal(secret, "hook_a")).not.toBe(sealed); // a fresh IV each time
  });

  it("refuses a sealed secret moved to another hook, changed, or opened with another key", () => {
    const sealed = box.seal(generateHookSecret(), "hook_a");
    expect(() => box.open(sealed, "hook_b")).toThrow(SecretUnavailableError);
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[3], "base64url");
    flipped[0] ^= 1;
    expect(() => box.open([parts[0], parts[1], parts[2], flipped.toString("base64url")].join("."), "hook_a")).toThrow(SecretUnavailableError);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, "hook_a")).toThrow(SecretUnavailableError);
    expect(() => box.open("garbage", "hook_a")).toThrow(SecretUnavailableError);
  });

  it("takes keys of exactly 32 bytes", () => {
    expect(parseSecretKey(generateSecretKey())).toHaveLength(32);
    expect(() => parseSecretKey(randomBytes(16).toString("base64"))).toThrow();
    expect(() => createSecretBox(randomBytes(31))).toThrow();
  });
});
