import { describe, expect, it } from "vitest";
import { createRetransmissions } from "./retransmissions.js";

const key = (packetId: number, payload = '{"n":1}', clientId = "ten_a/dev-1/c1") => ({
  clientId,
  packetId,
  topic: "devices/dev-1/telemetry",
  payload: Buffer.from(payload),
});

describe("retransmissions", () => {
  it("a resend of an unacknowledged publish keeps its stored id", () => {
    const r = createRetransmissions();
    const first = r.messageIdFor(key(7), false);
    expect(first).toMatch(/^dm-/);
    expect(r.messageIdFor(key(7), true)).toBe(first);
  });

  it("gives a new id once acknowledged, for another payload, another client, or a publish that is not a resend", () => {
    const r = createRetransmissions();
    const first = r.messageIdFor(key(7), false);
    expect(r.messageIdFor(key(7, '{"n":2}'), true)).not.toBe(first);
    const second = r.messageIdFor(key(8), false);
    expect(r.messageIdFor(key(8, undefined, "ten_b/dev-1/c1"), true)).not.toBe(second);
    expect(r.messageIdFor(key(8), false)).not.toBe(second);
    const third = r.messageIdFor(key(9), false);
    r.acknowledged(key(9));
    expect(r.messageIdFor(key(9), true)).not.toBe(third);
  });

  it("keeps the id of an attempt that ended unacknowledged, for the same payload only", () => {
    const r = createRetransmissions();
    const first = r.messageIdFor(key(7), false);
    r.unacknowledged(key(7));
    expect(r.messageIdFor(key(7, '{"n":2}'), true)).not.toBe(first);
    const second = r.messageIdFor(key(8), false);
    r.unacknowledged(key(8));
    expect(r.messageIdFor(key(8), true)).toBe(second);
  });

  it("forgets attempts older than the stream's duplicate window", () => {
    let now = 0;
    const r = createRetransmissions(() => now);
    const first = r.messageIdFor(key(7), false);
    r.unacknowledged(key(7));
    now += 11 * 60_000;
    expect(r.messageIdFor(key(7), true)).not.toBe(first);
  });
});
