// npm run docs:errors — writes docs/errors.md from the error catalog.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { errorsMarkdown } from "@waybill/contracts/errors/catalog-markdown.js";

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "errors.md");
writeFileSync(target, errorsMarkdown());
process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
