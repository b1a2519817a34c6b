// The dispatcher signs and the receiver package verifies: two packages that may not import each
// other (biome.json), so the proof that they agree lives here, where tests may import both.
import { describe, expect, it } from "vitest";
import { deliveryHeaders } from "../services/dispatcher/signing.js";
import { verifyWebhook } from "../services/receiver/verify.js";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"id":"evt_1","kind":"webhook.test"}';

describe("a delivery's signature", () => {
  it("is what the receiver helper accepts", () => {
    const now = Date.parse("2026-03-01T10:00:00Z");
    const headers = deliveryHeaders("hook_1", secret, body, now);
    expect(headers).toEqual({
      "Content-Type": "application/json",
      "X-Service-Webhook-Id": "hook_1",
      "X-Service-Signature": expect.stringMatching(/^t=1772359200,v1=[0-9a-f]{64}$/),
    });
    expect(verifyWebhook(secret, headers["X-Service-Signature"], body, { now })).toEqual({ ok: true, timestamp: 1772359200 });
  });

  it("is refused by the receiver helper with another secret or another body", () => {
    const now = Date.parse("2026-03-01T10:00:00Z");
    const signature = deliveryHeaders("hook_1", secret, body, now)["X-Service-Signature"];
    expect(verifyWebhook(`${secret}x`, signature, body, { now }).ok).toBe(false);
    expect(verifyWebhook(secret, signature, `${body} `, { now }).ok).toBe(false);
  });
});
