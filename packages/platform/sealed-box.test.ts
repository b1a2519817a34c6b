import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSealedBox, generateSealingKey, keyFingerprint, parseSealingKey, SealedValueUnavailableError } from "./sealed-box.js";

const box = createSealedBox(randomBytes(32));

describe("sealed box (AES-256-GCM)", () => {
  it("opens what it sealed, and the sealed text does not contain the plaintext", () => {
    const secret = randomBytes(32).toString("base64");
    const sealed = box.seal(secret, "row_a");
    expect(sealed).not.toContain(secret);
    expect(sealed).toMatch(/^v1\./);
    expect(box.open(sealed, "row_a")).toBe(secret);
    expect(box.seal(secret, "row_a")).not.toBe(sealed); // a fresh IV each time
  });

  it("refuses a sealed value moved to another row, changed, or opened with another key", () => {
    const sealed = box.seal("a secret", "row_a");
    expect(() => box.open(sealed, "row_b")).toThrow(SealedValueUnavailableError);
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[3], "base64url");
    flipped[0] ^= 1;
    expect(() => box.open([parts[0], parts[1], parts[2], flipped.toString("base64url")].join("."), "row_a")).toThrow(SealedValueUnavailableError);
    expect(() => createSealedBox(randomBytes(32)).open(sealed, "row_a")).toThrow(SealedValueUnavailableError);
    expect(() => box.open("garbage", "row_a")).toThrow(SealedValueUnavailableError);
  });

  it("takes keys of exactly 32 bytes, and names the setting that holds a bad one", () => {
    expect(parseSealingKey(generateSealingKey(), "SOME_KEY")).toHaveLength(32);
    expect(() => parseSealingKey(randomBytes(16).toString("base64"), "SOME_KEY")).toThrow(/SOME_KEY/);
    expect(() => createSealedBox(randomBytes(31))).toThrow();
  });

  it("fingerprints a key without revealing it", () => {
    const key = randomBytes(32);
    expect(keyFingerprint(key)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyFingerprint(key)).toBe(keyFingerprint(Buffer.from(key)));
    expect(keyFingerprint(randomBytes(32))).not.toBe(keyFingerprint(key));
  });
});
