// The error catalog has no dead entries: every code is raised somewhere in the services or
// packages (a string literal outside the catalog and the tests), so docs/errors.md and the
// OpenAPI document promise only codes that can happen.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "@waybill/contracts/errors/catalog.js";
import { ROOT } from "./support/processes.js";

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (name === "node_modules" || name === "dist" || name === "gen") return [];
    if (statSync(file).isDirectory()) return sources(file);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !file.includes(`errors${path.sep}catalog`) ? [file] : [];
  });
}

describe("the error catalog", () => {
  it("lists only codes some code raises", () => {
    const text = [...sources(path.join(ROOT, "services")), ...sources(path.join(ROOT, "packages"))]
      // The OpenAPI generator names codes to document them, not to raise them.
      .filter((file) => !file.endsWith("openapi-problems.ts"))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    const unused = ERROR_CODES.filter((code) => !text.includes(`"${code}"`));
    expect(unused).toEqual([]);
  });
});
