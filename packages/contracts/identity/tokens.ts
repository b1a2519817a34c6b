// API token values: `{type}-{secret}` with 256 random bits; stored only as a SHA-256 hash.
import { createHash, randomBytes } from "node:crypto";

export const TOKEN_TYPES = ["api", "cli", "machine", "sensor"] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

const TOKEN_PATTERN = /^(api|cli|machine|sensor)-([A-Za-z0-9_-]{16,256})$/;

export function generateToken(type: TokenType): string {
  return `${type}-${randomBytes(32).toString("base64url")}`;
}

/** The token's type when the value has the shape of a token, else undefined. */
export function tokenTypeOf(value: string): TokenType | undefined {
  const match = TOKEN_PATTERN.exec(value);
  return match ? (match[1] as TokenType) : undefined;
}

export function hashToken(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
