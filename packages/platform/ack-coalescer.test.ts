import type { JsMsg } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { createAckCoalescer } from "./ack-coalescer.js";

function message(log: string[], name: string): JsMsg {
  return { ack: () => log.push(name) } as unknown as JsMsg;
}

describe("createAckCoalescer", () => {
  it("sends the acks of one turn of the event loop together, after the turn, in the order given", async () => {
    const log: string[] = [];
    const acks = createAckCoalescer();
    acks.ack(message(log, "a"));
    await Promise.resolve(); // later microtasks of the same turn join the same batch
    acks.ack(message(log, "b"));
    expect(log).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["a", "b"]);
    acks.ack(message(log, "c"));
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["a", "b", "c"]);
  });

  it("sends what it holds at once on flush, and nothing twice", async () => {
    const log: string[] = [];
    const acks = createAckCoalescer();
    acks.ack(message(log, "a"));
    acks.flush();
    expect(log).toEqual(["a"]);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["a"]);
  });
});
