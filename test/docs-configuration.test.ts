// docs/configuration.md names every environment variable a service's config schema reads, so a
// new setting cannot ship undocumented.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/processes.js";

const configFiles = () => [
  "packages/platform/config.ts",
  "packages/platform/tracing.ts",
  "packages/platform/runtime-fixes.ts",
  "services/launcher/main.ts",
  ...readdirSync(path.join(ROOT, "services"))
    .map((service) => `services/${service}/config.ts`)
    .filter((file) => {
      try {
        return readFileSync(path.join(ROOT, file)).length > 0;
      } catch {
        return false;
      }
    }),
];

describe("docs/configuration.md", () => {
  it("documents every variable the config schemas read", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
    const names = new Set<string>();
    for (const file of configFiles()) {
      for (const match of readFileSync(path.join(ROOT, file), "utf8").matchAll(/^\s+([A-Z][A-Z0-9_]{2,}): z/gm)) names.add(match[1]);
    }
    expect(names.size).toBeGreaterThan(30);
    const missing = [...names].filter((name) => !doc.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
