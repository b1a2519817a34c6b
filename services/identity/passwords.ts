// Password hashes with scrypt (node:crypto), in a self-describing string so parameters can change.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

const N = 16_384;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

/**
 * scrypt with the password parameters and a caller-chosen salt, as hex: the same input and salt
 * give the same string, so it can be compared for equality yet is as slow to guess as a password hash.
 */
export async function slowDigest(input: string, salt: string): Promise<string> {
  return (await scrypt(input, Buffer.from(salt, "utf8"), KEY_LENGTH, { N, r: R, p: P })).toString("hex");
}

/** False for a wrong password and for any stored value this code did not write. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !key) return false;
  const expected = Buffer.from(key, "base64");
  if (expected.length !== KEY_LENGTH) return false;
  try {
    const actual = await scrypt(password, Buffer.from(salt, "base64"), KEY_LENGTH, { N: Number(n), r: Number(r), p: Number(p) });
    return timingSafeEqual(actual, expected);
  } catch {
    return false; // cost parameters out of range
  }
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
