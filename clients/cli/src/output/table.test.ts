import { describe, expect, it } from "vitest";
import { colors } from "./colors.js";
import { renderRecord, renderTable } from "./table.js";

describe("renderTable", () => {
  it("aligns columns under upper-case headers, cutting long cells and flattening line breaks", () => {
    const text = renderTable(
      [
        { id: "a", note: "short" },
        { id: "bbbb", note: `line one\nline two ${"x".repeat(60)}` },
      ],
      [
        { header: "id", value: (r) => r.id },
        { header: "note", value: (r) => r.note, max: 20 },
      ],
      colors(false),
    );
    expect(text.split("\n")).toEqual(["ID    NOTE", "a     short", "bbbb  line one line two x…"]);
  });

  it("measures cells by what shows, not by their colour codes", () => {
    const c = colors(true);
    const text = renderTable(
      [{ s: c.green("ok") }, { s: "failed" }],
      [
        { header: "status", value: (r) => r.s },
        { header: "x", value: () => "1" },
      ],
      c,
    );
    const rows = text
      .split("\n")
      .slice(1)
      .map((row) => row.replace(/\u001b\[[0-9;]*m/g, ""));
    expect(rows).toEqual(["ok      1", "failed  1"]);
  });
});

describe("renderRecord", () => {
  it("lines up keys", () => {
    expect(
      renderRecord(
        [
          ["id", "1"],
          ["status", "active"],
        ],
        colors(false),
      ),
    ).toBe("id      1\nstatus  active");
  });
});
