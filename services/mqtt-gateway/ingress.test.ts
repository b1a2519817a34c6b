import { describe, expect, it } from "vitest";
import { MAX_DEVICE_PAYLOAD_BYTES, parseDevicePayload } from "./ingress.js";

describe("parseDevicePayload", () => {
  it("accepts a JSON object valid for its channel, from a buffer or a string", () => {
    const body = { productId: "prd_1", onHand: 12 };
    expect(parseDevicePayload(Buffer.from(JSON.stringify(body)), "inventory")).toEqual({ ok: true, value: body, text: JSON.stringify(body) });
    expect(parseDevicePayload(JSON.stringify(body), "inventory")).toEqual({ ok: true, value: body, text: JSON.stringify(body) });
    expect(parseDevicePayload(" {}\n", "telemetry")).toEqual({ ok: true, value: {}, text: " {}\n" });
    expect(parseDevicePayload('{"trackingNumber":"T-1","status":"delivered"}', "shipments").ok).toBe(true);
  });

  it.each([
    ["not JSON", "onHand=12", "malformed_json"],
    ["empty", "", "malformed_json"],
    ["truncated JSON", '{"onHand": 1', "malformed_json"],
    ["an array", "[1,2,3]", "invalid_payload"],
    ["null", "null", "invalid_payload"],
    ["a number", "42", "invalid_payload"],
    ["a string", '"hello"', "invalid_payload"],
  ])("drops %s with a stable reason", (_why, payload, reason) => {
    const result = parseDevicePayload(Buffer.from(payload), "telemetry");
    expect(result).toEqual({ ok: false, reason, detail: expect.any(String) });
  });

  it.each([
    ["inventory", { productId: "prd_1", onHand: "many" }, "onHand"],
    ["inventory", { productId: "prd_1", onHand: -1 }, "onHand"],
    ["inventory", { onHand: 1 }, "productId"],
    ["shipments", { status: "delivered" }, "trackingNumber"],
    ["shipments", { trackingNumber: "T-1", status: "delivered", at: "yesterday" }, "at"],
  ] as const)("refuses a %s payload invalid for the channel as invalid_payload, naming the field", (channel, payload, field) => {
    const result = parseDevicePayload(JSON.stringify(payload), channel);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe("invalid_payload");
    expect(!result.ok && result.detail).toContain(field);
  });

  it("accepts a payload of exactly the limit and drops one byte more as oversized", () => {
    const exact = JSON.stringify({ pad: "x".repeat(MAX_DEVICE_PAYLOAD_BYTES - 10) });
    expect(Buffer.byteLength(exact)).toBe(MAX_DEVICE_PAYLOAD_BYTES);
    expect(parseDevicePayload(Buffer.from(exact), "telemetry").ok).toBe(true);
    const over = parseDevicePayload(Buffer.from(JSON.stringify({ pad: "x".repeat(MAX_DEVICE_PAYLOAD_BYTES - 9) })), "telemetry");
    expect(over).toEqual({ ok: false, reason: "oversized", detail: expect.stringMatching(/over/) });
  });

  it("measures strings in bytes, not characters", () => {
    const text = JSON.stringify({ pad: "é".repeat(MAX_DEVICE_PAYLOAD_BYTES / 2) });
    expect(text.length).toBeLessThan(MAX_DEVICE_PAYLOAD_BYTES);
    expect(parseDevicePayload(text, "telemetry").ok).toBe(false);
  });
});
