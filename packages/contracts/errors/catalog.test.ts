// The error catalog is the one list of codes: docs/errors.md is generated from it, and each
// entry's title is its status's reason phrase.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { appError, ERROR_CATALOG, ERROR_CODES, STATUS_TITLES } from "./catalog.js";
import { errorsMarkdown } from "./catalog-markdown.js";

const ERRORS_DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/errors.md");

describe("the error catalog", () => {
  it("gives each code a status, that status's title and a sentence saying when", () => {
    for (const code of ERROR_CODES) {
      const spec = ERROR_CATALOG[code];
      expect(STATUS_TITLES[spec.status], code).toBe(spec.title);
      expect(spec.when.length, code).toBeGreaterThan(10);
      expect(code).toMatch(/^[a-z]+(_[a-z0-9]+)*$/);
    }
  });

  it("builds errors by code with the catalog's status, title and the wrapped cause", () => {
    const cause = new Error("pg: relation missing");
    const error = appError("order_not_found", "No order ord_1.", { cause });
    expect(error).toMatchObject({ code: "order_not_found", status: 404, title: "Not Found", message: "No order ord_1." });
    expect(error.cause).toBe(cause);
    expect(appError("unknown_product", "No product.").status).toBe(422);
  });
});

describe("docs/errors.md", () => {
  it("is what `npm run docs:errors` generates from the catalog now", () => {
    expect(readFileSync(ERRORS_DOC, "utf8"), "docs/errors.md is stale: run `npm run docs:errors` and commit it").toBe(errorsMarkdown());
  });

  it("has one row per code under its status", () => {
    const markdown = errorsMarkdown();
    for (const code of ERROR_CODES) expect(markdown).toContain(`| \`${code}\` |`);
    expect(markdown).toMatch(/## 404 Not Found[\s\S]*\| `order_not_found` \|/);
  });
});
