import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError } from "@waybill/platform/config.js";
import { loadDispatcherConfig } from "./config.js";

describe("dispatcher config", () => {
  it("has API.md's webhook defaults", () => {
    const config = loadDispatcherConfig({});
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(30_000);
    expect(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
    expect(config.WEBHOOK_SECRET_KEY).toBeUndefined();
    expect(config.CONSUMER_ACK_WAIT_MS).toBe(30_000);
  });

  it("lets tests shorten the consumers' ack wait, not below a second", () => {
    expect(loadDispatcherConfig({ CONSUMER_ACK_WAIT_MS: "2000" }).CONSUMER_ACK_WAIT_MS).toBe(2_000);
    expect(() => loadDispatcherConfig({ CONSUMER_ACK_WAIT_MS: "500" })).toThrow(/CONSUMER_ACK_WAIT_MS/);
  });

  it("reads a compressed schedule, the private-network switch and a key", () => {
    const key = randomBytes(32).toString("base64");
    const config = loadDispatcherConfig({ WEBHOOK_RETRY_SCHEDULE: "50ms,100ms,200ms", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_SECRET_KEY: key });
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([50, 100, 200]);
    expect(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
    expect(config.WEBHOOK_SECRET_KEY).toBe(key);
  });

  it("refuses a bad schedule, a short key, and no key in production", () => {
    expect(() => loadDispatcherConfig({ WEBHOOK_RETRY_SCHEDULE: "5 minutes" })).toThrow(ConfigError);
    expect(() => loadDispatcherConfig({ WEBHOOK_SECRET_KEY: randomBytes(16).toString("base64") })).toThrow(/WEBHOOK_SECRET_KEY/);
    expect(() => loadDispatcherConfig({ NODE_ENV: "production" })).toThrow(/WEBHOOK_SECRET_KEY/);
    expect(() => loadDispatcherConfig({ WEBHOOK_TIMEOUT_MS: "0" })).toThrow(ConfigError);
  });
});
