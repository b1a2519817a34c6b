// docs/events.md is generated from the catalog; this fails when someone changed the catalog and
// did not run `npm run docs:events` (or edited the generated file by hand).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { EVENT_KINDS } from "./catalog.js";
import { eventsMarkdown } from "./catalog-markdown.js";

const EVENTS_DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/events.md");

describe("docs/events.md", () => {
  it("is what `npm run docs:events` generates from the catalog now", () => {
    expect(readFileSync(EVENTS_DOC, "utf8"), "docs/events.md is stale: run `npm run docs:events` and commit it").toBe(eventsMarkdown());
  });

  it("has one row per kind, naming each kind's fields", () => {
    const markdown = eventsMarkdown();
    for (const kind of EVENT_KINDS) expect(markdown).toContain(`| \`${kind}\` |`);
    expect(markdown).toMatch(/\| `order\.status\.changed` \|[^\n]*`previousOrderStatus`[^\n]*`currentOrderStatus`/);
  });
});
