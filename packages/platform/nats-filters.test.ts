import { describe, expect, it } from "vitest";
import { subjectMatches } from "./nats-filters.js";

describe("subjectMatches", () => {
  it("matches NATS wildcards as the server does", () => {
    const telemetry = "ingress.*.devices.*.telemetry";
    expect(subjectMatches(telemetry, "ingress.ten_1.devices.dock-1.telemetry")).toBe(true);
    expect(subjectMatches(telemetry, "ingress.ten_1.devices.dock-1.inventory")).toBe(false);
    expect(subjectMatches(telemetry, "ingress.ten_1.devices.dock-1.telemetry.extra")).toBe(false);
    expect(subjectMatches(telemetry, "ingress.ten_1.devices.telemetry")).toBe(false);
    expect(subjectMatches("t1_ingress.*.devices.*.telemetry", "t1_ingress.ten_1.devices.d.telemetry")).toBe(true);
    expect(subjectMatches("events.>", "events.ten_1.order.created")).toBe(true);
    expect(subjectMatches("events.>", "events")).toBe(false);
    expect(subjectMatches("events.*", "events.a.b")).toBe(false);
    expect(subjectMatches("a.b", "a.b")).toBe(true);
  });
});
