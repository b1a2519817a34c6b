import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliveryHeaders, generateSecret, isSecret, listenHookId, signature } from "./signing.js";

describe("forwarded deliveries", () => {
  it("are signed as API.md says: hex HMAC-SHA256 keyed by the whole secret over '<t>.<body>'", () => {
    const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=";
    const body = '{"id":"evt_1","kind":"order.created"}';
    const now = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const t = Math.floor(now / 1000);
    expect(signature(secret, body, now)).toBe(`t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`);
  });

  it("carry the delivery's headers under a pseudo hook id that stays the same for one secret", () => {
    const secret = generateSecret();
    expect(isSecret(secret)).toBe(true);
    expect(listenHookId(secret)).toBe(listenHookId(secret));
    expect(listenHookId(secret)).not.toBe(listenHookId(generateSecret()));
    const headers = deliveryHeaders(listenHookId(secret), secret, "{}");
    expect(Object.keys(headers)).toEqual(["Content-Type", "X-Service-Webhook-Id", "X-Service-Signature"]);
    expect(headers["Content-Type"]).toBe("application/json");
    expect(headers["X-Service-Webhook-Id"]).toMatch(/^hook_listen_[0-9a-f]{16}$/);
  });
});
