import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createReceiver } from "./example-receiver.js";
import { parseSignatureHeader, verifyWebhook } from "./verify.js";

const secret = "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTAxMjM0NTY=";
const body = '{"id":"evt_01","kind":"order.created","time":"2026-01-01T00:00:00.000Z","transactionId":"txn_01"}';
const t = 1_767_225_600;
const sign = (key: string, ts: number, raw: string) => `t=${ts},v1=${createHmac("sha256", key).update(`${ts}.${raw}`).digest("hex")}`;
const at = (seconds: number) => ({ now: seconds * 1000 });

describe("verifyWebhook", () => {
  it("accepts a signature over the raw body, given as text, bytes or Date", () => {
    expect(verifyWebhook(secret, sign(secret, t, body), body, at(t))).toEqual({ ok: true, timestamp: t });
    expect(verifyWebhook(secret, sign(secret, t, body), Buffer.from(body), { now: new Date(t * 1000) }).ok).toBe(true);
    expect(verifyWebhook(secret, [sign(secret, t, body)], new Uint8Array(Buffer.from(body)), at(t)).ok).toBe(true);
  });

  it("refuses another body, another secret, or a body re-serialised differently", () => {
    expect(verifyWebhook(secret, sign(secret, t, body), body.replace("order.created", "order.updated"), at(t)).ok).toBe(false);
    expect(verifyWebhook(`${secret}x`, sign(secret, t, body), body, at(t)).ok).toBe(false);
    expect(verifyWebhook(secret, sign(secret, t, body), JSON.stringify(JSON.parse(body), null, 1), at(t)).ok).toBe(false);
    // The key is the whole string, prefix included, not the decoded bytes.
    const decoded = Buffer.from(secret.slice(6), "base64").toString("latin1");
    expect(verifyWebhook(secret, sign(decoded, t, body), body, at(t)).ok).toBe(false);
  });

  it("refuses timestamps more than the tolerance away, both ways", () => {
    const header = sign(secret, t, body);
    expect(verifyWebhook(secret, header, body, at(t + 300)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, at(t - 300)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, at(t + 301))).toEqual({ ok: false, reason: "timestamp outside tolerance" });
    expect(verifyWebhook(secret, header, body, at(t - 301))).toEqual({ ok: false, reason: "timestamp outside tolerance" });
    expect(verifyWebhook(secret, header, body, { ...at(t + 1000), toleranceSeconds: 1000 }).ok).toBe(true);
  });

  it("counts whole seconds: exactly 300 s old passes through its last millisecond, 301 s does not", () => {
    const header = sign(secret, t, body);
    const ms = (millis: number) => ({ now: millis });
    expect(verifyWebhook(secret, header, body, ms((t + 300) * 1000)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, ms((t + 300) * 1000 + 500)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, ms((t + 300) * 1000 + 999)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, { now: new Date((t + 300) * 1000 + 999) }).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, ms((t + 301) * 1000))).toEqual({ ok: false, reason: "timestamp outside tolerance" });
    expect(verifyWebhook(secret, header, body, ms((t + 301) * 1000 + 1))).toEqual({ ok: false, reason: "timestamp outside tolerance" });
    // Ahead of the receiver's clock: the same whole-second rule.
    expect(verifyWebhook(secret, header, body, ms((t - 300) * 1000)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, ms((t - 300) * 1000 + 999)).ok).toBe(true);
    expect(verifyWebhook(secret, header, body, ms((t - 301) * 1000 + 999))).toEqual({ ok: false, reason: "timestamp outside tolerance" });
  });

  it("refuses malformed headers", () => {
    const good = sign(secret, t, body);
    const v1 = good.split("v1=")[1];
    for (const header of [
      undefined,
      null,
      "",
      "t=",
      `v1=${v1}`,
      `t=${t}`,
      `t=${t};v1=${v1}`,
      `t=${t},v1=${v1.toUpperCase()}`,
      `t=-1,v1=${v1}`,
      `t=${t},v1=${v1}0`,
      "x".repeat(2000),
    ]) {
      expect(verifyWebhook(secret, header, body, at(t)), String(header)).toEqual({ ok: false, reason: "malformed signature header" });
    }
  });

  it("accepts any one matching v1 and ignores unknown keys", () => {
    const v1 = sign(secret, t, body).split("v1=")[1];
    expect(verifyWebhook(secret, `t=${t}, v1=${"0".repeat(64)}, v1=${v1}, v2=abc`, body, at(t)).ok).toBe(true);
    expect(parseSignatureHeader(`t=${t},v1=${v1},v0=zz`)).toEqual({ timestamp: t, signatures: [v1] });
  });
});

describe("reference receiver", () => {
  it("answers 204 to a verified delivery, marks a repeat as duplicate, and 401 otherwise", async () => {
    const events: { id: string; duplicate: boolean }[] = [];
    const server = createReceiver({ secret, onEvent: ({ event, duplicate }) => void events.push({ id: event.id, duplicate }) });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const post = (signature: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-signature": signature, "x-service-webhook-id": "hook_1" },
        body,
      }).then((r) => r.status);
    try {
      const now = Math.floor(Date.now() / 1000);
      expect(await post(sign(secret, now, body))).toBe(204);
      expect(await post(sign(secret, now, body))).toBe(204);
      expect(await post(sign("whsec_other", now, body))).toBe(401);
      expect(await post(sign(secret, now - 301, body))).toBe(401);
      expect(await post("nonsense")).toBe(401);
      expect(events).toEqual([
        { id: "evt_01", duplicate: false },
        { id: "evt_01", duplicate: true },
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
