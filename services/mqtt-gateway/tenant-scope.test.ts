import { describe, expect, it } from "vitest";
import { DROPPED_TOPIC, scopedClientId, scopedTopic, unscopedTopic } from "./tenant-scope.js";
import { maySubscribe } from "./topics.js";

describe("tenant scope", () => {
  it("gives each tenant and device its own client-id namespace", () => {
    expect(scopedClientId("ten_a", "shelf-x", "c1")).not.toBe(scopedClientId("ten_b", "shelf-x", "c1"));
    expect(scopedClientId("ten_a", "shelf-x", "c1")).not.toBe(scopedClientId("ten_a", "shelf-y", "c1"));
  });

  it("unscopes only its own tenant's topics", () => {
    const topic = scopedTopic("ten_a", "devices/shelf-x/commands/open");
    expect(unscopedTopic("ten_a", topic)).toBe("devices/shelf-x/commands/open");
    expect(unscopedTopic("ten_b", topic)).toBeUndefined();
    expect(unscopedTopic("ten_a", "devices/shelf-x/commands/open")).toBeUndefined();
    // A tenant id that merely starts alike is another tenant.
    expect(unscopedTopic("ten_a", scopedTopic("ten_ab", "devices/x/commands/open"))).toBeUndefined();
  });

  it("puts dropped messages where no device filter can reach", () => {
    expect(unscopedTopic("ten_a", DROPPED_TOPIC)).toBeUndefined();
    expect(maySubscribe("x", DROPPED_TOPIC)).toBe(false);
  });
});
