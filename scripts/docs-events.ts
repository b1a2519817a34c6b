// npm run docs:events — writes docs/events.md from the events catalog.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventsMarkdown } from "@waybill/contracts/events/catalog-markdown.js";

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "events.md");
writeFileSync(target, eventsMarkdown());
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
