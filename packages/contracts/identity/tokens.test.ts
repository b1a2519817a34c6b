import { describe, expect, it } from "vitest";
import { generateToken, hashToken, TOKEN_TYPES, tokenCacheKey, tokenTypeOf } from "./tokens.js";

describe("generateToken", () => {
  it.each(TOKEN_TYPES)("makes %s tokens of the form {type}-<43 base64url chars>", (type) => {
    const token = generateToken(type);
    expect(token).toMatch(new RegExp(`^${type}-[A-Za-z0-9_-]{43}$`));
    expect(tokenTypeOf(token)).toBe(type);
  });

  it("never repeats a value", () => {
    const tokens = new Set(Array.from({ length: 200 }, () => generateToken("api")));
    expect(tokens.size).toBe(200);
  });
});

describe("tokenTypeOf", () => {
  const secret = "A".repeat(43);

  it("reads the type of well-formed values", () => {
    expect(tokenTypeOf(`api-${secret}`)).toBe("api");
    expect(tokenTypeOf(`cli-${secret}`)).toBe("cli");
    expect(tokenTypeOf(`machine-${secret}`)).toBe("machine");
    expect(tokenTypeOf(`sensor-${secret}`)).toBe("sensor");
  });

  it.each([
    "",
    secret,
    `admin-${secret}`,
    `API-${secret}`,
    `api_${secret}`,
    "api-",
    "api-short",
    `api-${secret}=`,
    `api-${secret} `,
    ` api-${secret}`,
    `api-${secret.slice(0, 20)}+/${secret.slice(0, 20)}`,
    `api-${"a".repeat(257)}`,
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
  ])("rejects %j", (value) => {
    expect(tokenTypeOf(value)).toBeUndefined();
  });
});

describe("hashToken", () => {
  it("is a deterministic 32-byte SHA-256 digest", () => {
    const token = generateToken("api");
    const hash = hashToken(token);
    expect(hash).toBeInstanceOf(Buffer);
    expect(hash.length).toBe(32);
    expect(hashToken(token).equals(hash)).toBe(true);
  });

  it("differs between tokens", () => {
    const a = generateToken("api");
    const b = generateToken("api");
    expect(hashToken(a).equals(hashToken(b))).toBe(false);
  });

  it("matches the known SHA-256 of a value", () => {
    expect(hashToken("abc").toString("hex")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("tokenCacheKey", () => {
  it("is the token's SHA-256 digest in base64, the same digest identity stores", () => {
    const token = generateToken("api");
    expect(tokenCacheKey(token)).toBe(hashToken(token).toString("base64"));
    expect(tokenCacheKey("abc")).toBe("ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
  });
});
