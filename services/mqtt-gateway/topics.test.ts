import { describe, expect, it } from "vitest";
import { DEVICE_ID_PATTERN, maySubscribe, publishableLevels, storedChannel } from "./topics.js";

describe("publishableLevels", () => {
  it("returns the levels below the device's own subtree", () => {
    expect(publishableLevels("dev-1", "devices/dev-1/inventory")).toEqual(["inventory"]);
    expect(publishableLevels("dev-1", "devices/dev-1/shipments")).toEqual(["shipments"]);
    expect(publishableLevels("dev-1", "devices/dev-1/telemetry/temp_1")).toEqual(["telemetry", "temp_1"]);
  });

  it.each([
    ["another device", "devices/dev-2/inventory"],
    ["a device whose id merely starts alike", "devices/dev-10/inventory"],
    ["the device root itself", "devices/dev-1"],
    ["a trailing slash", "devices/dev-1/"],
    ["an empty level", "devices/dev-1//inventory"],
    ["a leading slash", "/devices/dev-1/inventory"],
    ["another root", "sensors/dev-1/inventory"],
    ["a single-level wildcard", "devices/dev-1/+"],
    ["a multi-level wildcard", "devices/dev-1/#"],
    ["a wildcard in place of the id", "devices/+/inventory"],
    ["a dot (NATS token separator)", "devices/dev-1/inv.entory"],
    ["a NATS wildcard", "devices/dev-1/*"],
    ["a NATS tail wildcard", "devices/dev-1/>"],
    ["a space", "devices/dev-1/in ventory"],
    ["a dot-dot level", "devices/dev-1/../dev-2/inventory"],
    ["an over-long level", `devices/dev-1/${"a".repeat(65)}`],
  ])("refuses %s", (_why, topic) => {
    expect(publishableLevels("dev-1", topic)).toBeUndefined();
  });
});

describe("maySubscribe", () => {
  it("allows the device's own commands", () => {
    expect(maySubscribe("dev-1", "devices/dev-1/commands/#")).toBe(true);
    expect(maySubscribe("dev-1", "devices/dev-1/commands")).toBe(true);
    expect(maySubscribe("dev-1", "devices/dev-1/commands/+")).toBe(true);
    expect(maySubscribe("dev-1", "devices/dev-1/commands/reboot")).toBe(true);
  });

  it.each([
    "#",
    "+/+/commands/#",
    "devices/#",
    "devices/+/commands/#",
    "devices/dev-2/commands/#",
    "devices/dev-1/#",
    "devices/dev-1/+",
    "devices/dev-1/+/#",
    "devices/dev-1/inventory",
    "devices/dev-1/commandsX/#",
    "devices/dev-1",
    "$SYS/#",
    "",
  ])("refuses %j", (filter) => {
    expect(maySubscribe("dev-1", filter)).toBe(false);
  });
});

describe("DEVICE_ID_PATTERN", () => {
  it("accepts plain ids and refuses topic or wildcard characters", () => {
    expect(DEVICE_ID_PATTERN.test("dev-1_A")).toBe(true);
    for (const id of ["", "a/b", "+", "#", "a.b", "a b", "x".repeat(65)]) expect(DEVICE_ID_PATTERN.test(id)).toBe(false);
  });
});

describe("storedChannel", () => {
  it("names the channels a consumer takes, and nothing else", () => {
    expect(storedChannel(["inventory"])).toBe("inventory");
    expect(storedChannel(["shipments"])).toBe("shipments");
    expect(storedChannel(["telemetry"])).toBe("telemetry");
    for (const levels of [["foo"], ["commands"], ["commands", "open"], ["telemetry", "temp_1"], ["Inventory"], []])
      expect(storedChannel(levels)).toBeUndefined();
  });
});
