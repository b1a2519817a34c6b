import { describe, expect, it } from "vitest";
import { detectTerminal } from "./terminal.js";

const tty = { stdout: { isTTY: true, columns: 100 }, stderr: { isTTY: true } };
const piped = { stdout: { isTTY: false }, stderr: { isTTY: false } };

describe("detectTerminal", () => {
  it("uses colours only on a terminal", () => {
    expect(detectTerminal({}, {}, tty)).toEqual({ interactive: true, color: true, stderrInteractive: true, columns: 100 });
    expect(detectTerminal({}, {}, piped)).toMatchObject({ interactive: false, color: false, stderrInteractive: false });
  });

  it("never with NO_COLOR (any non-empty value), --no-color or a dumb terminal", () => {
    expect(detectTerminal({ NO_COLOR: "1" }, {}, tty).color).toBe(false);
    expect(detectTerminal({ NO_COLOR: "" }, {}, tty).color).toBe(true);
    expect(detectTerminal({}, { color: false }, tty).color).toBe(false);
    expect(detectTerminal({ TERM: "dumb" }, {}, tty).color).toBe(false);
  });
});
