import { describe, expect, it } from "vitest";
import { publishDurable, type Bus } from "./nats.js";

/** A bus whose JetStream client notes each publish, with the stack trace limit it saw. */
function fakeBus(fail?: string) {
  const sent: { subject: string; stackTraceLimit: number }[] = [];
  let seq = 0;
  const bus = {
    js: {
      publish: (subject: string) => {
        sent.push({ subject, stackTraceLimit: Error.stackTraceLimit });
        return subject === fail ? Promise.reject(new Error(`refused ${subject}`)) : Promise.resolve({ duplicate: false, seq: ++seq });
      },
    },
  } as unknown as Bus;
  return { bus, sent };
}

describe("publishDurable", () => {
  it("sends the publishes of one turn of the event loop together, in order, after the turn", async () => {
    const { bus, sent } = fakeBus();
    const first = publishDurable(bus, "a", "1", { msgId: "m1" });
    await Promise.resolve();
    const second = publishDurable(bus, "b", "2", { msgId: "m2" });
    expect(sent).toEqual([]);
    expect(await Promise.all([first, second])).toEqual([
      { duplicate: false, seq: 1 },
      { duplicate: false, seq: 2 },
    ]);
    expect(sent.map((s) => s.subject)).toEqual(["a", "b"]);
    // Stack traces are off only while the held publishes are handed to nats.js.
    expect(sent.every((s) => s.stackTraceLimit === 0)).toBe(true);
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
  });

  it("rejects only the publish that failed", async () => {
    const { bus } = fakeBus("bad");
    const results = await Promise.allSettled([publishDurable(bus, "good", "1", { msgId: "m1" }), publishDurable(bus, "bad", "2", { msgId: "m2" })]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe("refused bad");
  });
});
