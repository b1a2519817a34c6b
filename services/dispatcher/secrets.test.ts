import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSealedBox, keyFingerprint } from "@waybill/platform/sealed-box.js";
import { createSecretBox, generateHookSecret, generateSecretKey, isSealedWith, parseSecretKey, SecretUnavailableError } from "./secrets.js";

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

  it("names the key that sealed, and reads with the previous key during a rotation", () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const secret = generateHookSecret();
    const sealedOld = createSecretBox(oldKey).seal(secret, "hook_a");
    expect(isSealedWith(sealedOld, keyFingerprint(oldKey))).toBe(true);
    expect(sealedOld).toMatch(/^v1\.[^.]+\.[^.]+\.[^.]+\.[0-9a-f]{16}$/);

    const rotating = createSecretBox(newKey, oldKey);
    expect(rotating.hasPrevious).toBe(true);
    expect(rotating.open(sealedOld, "hook_a")).toBe(secret);
    const resealed = rotating.seal(secret, "hook_a");
    expect(isSealedWith(resealed, rotating.fingerprint)).toBe(true);
    expect(createSecretBox(newKey).open(resealed, "hook_a")).toBe(secret);
    // Without the previous key the old value no longer opens.
    expect(() => createSecretBox(newKey).open(sealedOld, "hook_a")).toThrow(SecretUnavailableError);
  });

  it("opens values sealed before keys were named, with either key", () => {
    const oldKey = randomBytes(32);
    const secret = generateHookSecret();
    const unnamed = createSealedBox(oldKey).seal(secret, "hook_a");
    expect(createSecretBox(oldKey).open(unnamed, "hook_a")).toBe(secret);
    expect(createSecretBox(randomBytes(32), oldKey).open(unnamed, "hook_a")).toBe(secret);
    expect(isSealedWith(unnamed, keyFingerprint(oldKey))).toBe(false);
  });

  it("takes keys of exactly 32 bytes", () => {
    expect(parseSecretKey(generateSecretKey())).toHaveLength(32);
    expect(() => parseSecretKey(randomBytes(16).toString("base64"))).toThrow(/WEBHOOK_SECRET_KEY/);
  });
});
