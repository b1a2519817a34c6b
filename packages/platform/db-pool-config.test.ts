import { describe, expect, it } from "vitest";
import { z } from "zod";
import { baseConfigShape, ConfigError, DEFAULT_DB_POOL_MAX, loadConfig } from "./config.js";

const schema = z.object(baseConfigShape);

describe("DB_POOL_MAX", () => {
  it("defaults to the named constant and reads a number", () => {
    expect(loadConfig(schema, {}).DB_POOL_MAX).toBe(DEFAULT_DB_POOL_MAX);
    expect(loadConfig(schema, { DB_POOL_MAX: "25" }).DB_POOL_MAX).toBe(25);
  });

  it("refuses what is not a positive whole number at start", () => {
    for (const value of ["abc", "0", "-3", "2.5"]) {
      expect(() => loadConfig(schema, { DB_POOL_MAX: value })).toThrow(ConfigError);
    }
    expect(() => loadConfig(schema, { DB_POOL_MAX: "abc" })).toThrow(/DB_POOL_MAX/);
  });
});
