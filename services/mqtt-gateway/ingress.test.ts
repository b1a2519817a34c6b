import { describe, expect, it } from "vitest";
import { MAX_DEVICE_PAYLOAD_BYTES, parseDevicePayload } from "./ingress.js";

describe("parseDevicePayload", () => {
  it("accepts a JSON object from a buffer or a string", () => {
    const body = { productId: "prd_1", onHand: 12 };
    expect(parseDevicePayload(Buffer.from(JSON.stringify(body)))).toEqual({ ok: true, value: body });
    expect(parseDevicePayload(JSON.stringify(body))).toEqual({ ok: true, value: body });
    expect(parseDevicePayload("{}")).toEqual({ ok: true, value: {} });
  });

  it.each([
    ["not JSON", "onHand=12", /not JSON/],
    ["empty", "", /not JSON/],
    ["truncated JSON", '{"onHand": 1', /not JSON/],
    ["an array", "[1,2,3]", /not a JSON object/],
    ["null", "null", /not a JSON object/],
    ["a number", "42", /not a JSON object/],
    ["a string", '"hello"', /not a JSON object/],
  ])("drops %s with a reason", (_why, payload, reason) => {
    const result = parseDevicePayload(Buffer.from(payload));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toMatch(reason);
  });

  it("accepts a payload of exactly the limit and drops one byte more", () => {
    const exact = JSON.stringify({ pad: "x".repeat(MAX_DEVICE_PAYLOAD_BYTES - 10) });
    expect(Buffer.byteLength(exact)).toBe(MAX_DEVICE_PAYLOAD_BYTES);
    expect(parseDevicePayload(Buffer.from(exact)).ok).toBe(true);
    const over = parseDevicePayload(Buffer.from(JSON.stringify({ pad: "x".repeat(MAX_DEVICE_PAYLOAD_BYTES - 9) })));
    expect(over).toEqual({ ok: false, reason: expect.stringMatching(/over/) });
  });

  it("measures strings in bytes, not characters", () => {
    const text = JSON.stringify({ pad: "é".repeat(MAX_DEVICE_PAYLOAD_BYTES / 2) });
    expect(text.length).toBeLessThan(MAX_DEVICE_PAYLOAD_BYTES);
    expect(parseDevicePayload(text).ok).toBe(false);
  });
});
