import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  baseConfigShape,
  booleanFlag,
  ConfigError,
  DEFAULT_CONSUMER_ACK_WAIT_MS,
  DEFAULT_CONSUMER_STALL_WINDOW_MS,
  DEFAULT_DATABASE_URL,
  DEFAULT_NATS_URL,
  loadConfig,
  port,
} from "./config.js";

const schema = z.object({
  ...baseConfigShape,
  HTTP_PORT: port.default(8080),
  ALLOW_PRIVATE: booleanFlag.default(false),
});

function configErrorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(schema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies defaults to an empty environment", () => {
    const config = loadConfig(schema, {});
    expect(config.DATABASE_URL).toBe(DEFAULT_DATABASE_URL);
    expect(config.NATS_URL).toBe(DEFAULT_NATS_URL);
    expect(config.LOG_LEVEL).toBe("info");
    expect(config.STREAM_PREFIX).toBe("");
    expect(config.HTTP_PORT).toBe(8080);
    expect(config.ALLOW_PRIVATE).toBe(false);
  });

  it("reads and coerces given values", () => {
    const config = loadConfig(schema, { HTTP_PORT: "9090", DATABASE_URL: "postgres://db:5432/x", ALLOW_PRIVATE: "true", LOG_LEVEL: "debug" });
    expect(config.HTTP_PORT).toBe(9090);
    expect(config.DATABASE_URL).toBe("postgres://db:5432/x");
    expect(config.ALLOW_PRIVATE).toBe(true);
    expect(config.LOG_LEVEL).toBe("debug");
  });

  it("treats empty strings as unset", () => {
    const config = loadConfig(schema, { HTTP_PORT: "", DATABASE_URL: "", ALLOW_PRIVATE: "", LOG_LEVEL: undefined });
    expect(config.HTTP_PORT).toBe(8080);
    expect(config.DATABASE_URL).toBe(DEFAULT_DATABASE_URL);
    expect(config.ALLOW_PRIVATE).toBe(false);
    expect(config.LOG_LEVEL).toBe("info");
  });

  it("returns a frozen object", () => {
    const config = loadConfig(schema, {});
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { HTTP_PORT: number }).HTTP_PORT = 1;
    }).toThrow(TypeError);
  });

  it("names the bad variable", () => {
    expect(configErrorOf({ HTTP_PORT: "eighty" }).message).toContain("HTTP_PORT");
    expect(configErrorOf({ HTTP_PORT: "70000" }).message).toContain("HTTP_PORT");
    expect(configErrorOf({ LOG_LEVEL: "loud" }).message).toContain("LOG_LEVEL");
    expect(configErrorOf({ DATABASE_URL: "not a url" }).message).toContain("DATABASE_URL");
    expect(configErrorOf({ STREAM_PREFIX: "a.b" }).message).toContain("STREAM_PREFIX");
    expect(configErrorOf({ ALLOW_PRIVATE: "maybe" }).message).toContain("ALLOW_PRIVATE");
  });

  it("names every bad variable at once and not the good ones", () => {
    const message = configErrorOf({ HTTP_PORT: "-1", LOG_LEVEL: "loud", NATS_URL: "nats://n:4222" }).message;
    expect(message).toContain("HTTP_PORT");
    expect(message).toContain("LOG_LEVEL");
    expect(message).not.toContain("NATS_URL");
  });
});

describe("booleanFlag", () => {
  it.each([
    ["true", true],
    ["1", true],
    ["yes", true],
    ["false", false],
    ["0", false],
    ["no", false],
  ])("reads %s as %s", (text, value) => {
    expect(booleanFlag.parse(text)).toBe(value);
  });

  it.each(["on", "off", "2", "", "truthy"])("rejects %j", (text) => {
    expect(booleanFlag.safeParse(text).success).toBe(false);
  });
});

describe("CONSUMER_STALL_WINDOW_MS and CONSUMER_ACK_WAIT_MS", () => {
  it("default to the named constants and refuse values outside their bounds at start", () => {
    const config = loadConfig(schema, {});
    expect(config.CONSUMER_STALL_WINDOW_MS).toBe(DEFAULT_CONSUMER_STALL_WINDOW_MS);
    expect(config.CONSUMER_ACK_WAIT_MS).toBe(DEFAULT_CONSUMER_ACK_WAIT_MS);
    expect(loadConfig(schema, { CONSUMER_STALL_WINDOW_MS: "5000", CONSUMER_ACK_WAIT_MS: "2000" })).toMatchObject({
      CONSUMER_STALL_WINDOW_MS: 5_000,
      CONSUMER_ACK_WAIT_MS: 2_000,
    });
    for (const [name, value] of [
      ["CONSUMER_STALL_WINDOW_MS", "999"],
      ["CONSUMER_ACK_WAIT_MS", "0"],
      ["CONSUMER_ACK_WAIT_MS", "soon"],
    ]) {
      expect(() => loadConfig(schema, { [name]: value }), `${name}=${value}`).toThrow(new RegExp(name));
    }
  });
});
