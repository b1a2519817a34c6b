import { describe, expect, it } from "vitest";
import { generatePassword, hashPassword, verifyPassword } from "./passwords.js";

describe("passwords", () => {
  it("verifies the right password and rejects a wrong one", async () => {
    const stored = await hashPassword("correct horse battery staple");
    await expect(verifyPassword("correct horse battery staple", stored)).resolves.toBe(true);
    await expect(verifyPassword("correct horse battery stapl", stored)).resolves.toBe(false);
    await expect(verifyPassword("", stored)).resolves.toBe(false);
  });

  it("stores a self-describing salted hash, never the password", async () => {
    const first = await hashPassword("s3cret-pass");
    const second = await hashPassword("s3cret-pass");
    expect(first).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(first).not.toContain("s3cret-pass");
    expect(first).not.toBe(second);
    await expect(verifyPassword("s3cret-pass", second)).resolves.toBe(true);
  });

  it("rejects malformed stored hashes", async () => {
    const stored = await hashPassword("pw");
    const [, n, r, p, salt] = stored.split("$");
    for (const malformed of [
      "",
      "pw",
      "garbage",
      `bcrypt$${n}$${r}$${p}$${salt}$${stored.split("$")[5]}`,
      `scrypt$${n}$${r}$${p}$${salt}`,
      `scrypt$${n}$${r}$${p}$${salt}$`,
      `scrypt$${n}$${r}$${p}$$${stored.split("$")[5]}`,
      // a key that decodes to nothing must not compare equal to an empty derived key
      `scrypt$${n}$${r}$${p}$${salt}$!!!!`,
      // cost parameters out of range are a mismatch, not an exception
      `scrypt$abc$${r}$${p}$${salt}$${stored.split("$")[5]}`,
      `scrypt$1073741824$${r}$${p}$${salt}$${stored.split("$")[5]}`,
    ]) {
      await expect(verifyPassword("pw", malformed), malformed).resolves.toBe(false);
    }
  });

  it("rejects a stored hash whose key was tampered with", async () => {
    const stored = await hashPassword("pw");
    const parts = stored.split("$");
    parts[5] = Buffer.alloc(32, 0).toString("base64");
    await expect(verifyPassword("pw", parts.join("$"))).resolves.toBe(false);
  });

  it("generates distinct URL-safe passwords", () => {
    const a = generatePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(generatePassword()).not.toBe(a);
  });
});
