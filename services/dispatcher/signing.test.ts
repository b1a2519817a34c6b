import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliveryHeaders, signatureHeader } from "./signing.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"id":"evt_1","kind":"webhook.test"}';

describe("signatureHeader", () => {
  it('is t=<unix s>,v1=hex(HMAC-SHA256(whole secret string, "<t>.<body>"))', () => {
    const expected = createHmac("sha256", secret).update(`1700000000.${body}`).digest("hex");
    expect(signatureHeader(secret, 1700000000, body)).toBe(`t=1700000000,v1=${expected}`);
  });

  it("matches a value computed outside Node (openssl dgst -sha256 -hmac <secret>)", () => {
    expect(signatureHeader(secret, 1700000000, body)).toBe("t=1700000000,v1=b77b3a3143340c5b42807797334ec14c73bf7a236a2119c93a4ffb0179242656");
  });

  it("goes out with the hook's id in the delivery headers (test/webhook-signing.test.ts checks it against the receiver)", () => {
    const now = Date.parse("2026-03-01T10:00:00Z");
    expect(deliveryHeaders("hook_1", secret, body, now)).toEqual({
      "Content-Type": "application/json",
      "X-Service-Webhook-Id": "hook_1",
      "X-Service-Signature": signatureHeader(secret, 1772359200, body),
    });
  });
});
