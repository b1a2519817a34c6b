import { describe, expect, it } from "vitest";
import { z } from "zod";
import { baseConfigShape, ConfigError, DEFAULT_CONSUMER_ACK_WAIT_MS, DEFAULT_CONSUMER_STALL_WINDOW_MS, DEFAULT_DB_POOL_MAX, loadConfig } from "./config.js";

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

describe("CONSUMER_STALL_WINDOW_MS and CONSUMER_ACK_WAIT_MS", () => {
  it("default to the named constants and refuse values outside their bounds at start", () => {
    const config = loadConfig(schema, {});
    expect(config.CONSUMER_STALL_WINDOW_MS).toBe(DEFAULT_CONSUMER_STALL_WINDOW_MS);
    expect(config.CONSUMER_ACK_WAIT_MS).toBe(DEFAULT_CONSUMER_ACK_WAIT_MS);
    expect(loadConfig(schema, { CONSUMER_STALL_WINDOW_MS: "5000", CONSUMER_ACK_WAIT_MS: "2000" })).toMatchObject({ CONSUMER_STALL_WINDOW_MS: 5_000, CONSUMER_ACK_WAIT_MS: 2_000 });
    for (const [name, value] of [["CONSUMER_STALL_WINDOW_MS", "999"], ["CONSUMER_ACK_WAIT_MS", "0"], ["CONSUMER_ACK_WAIT_MS", "soon"]]) {
      expect(() => loadConfig(schema, { [name]: value }), `${name}=${value}`).toThrow(new RegExp(name));
    }
  });
});
