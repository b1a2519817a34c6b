import { describe, expect, it } from "vitest";
import { formatEvent } from "./sse.js";

describe("formatEvent", () => {
  it("writes id, event and data lines ending with a blank line", () => {
    expect(formatEvent({ id: "evt_1", event: "order.created", data: '{"a":1}' })).toBe('id: evt_1\nevent: order.created\ndata: {"a":1}\n\n');
  });

  it("splits data holding line breaks into several data lines (readers join them with \\n)", () => {
    expect(formatEvent({ id: "evt_2", event: "x", data: "one\ntwo\r\nthree" })).toBe("id: evt_2\nevent: x\ndata: one\ndata: two\ndata: three\n\n");
  });
});
