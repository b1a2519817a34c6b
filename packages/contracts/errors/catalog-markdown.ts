// docs/errors.md, written from the error catalog (`npm run docs:errors`); a test keeps the file
// equal to what this returns.
import { ERROR_CATALOG, ERROR_CODES } from "./catalog.js";

export function errorsMarkdown(): string {
  const statuses = [...new Set(ERROR_CODES.map((code) => ERROR_CATALOG[code].status))].sort((a, b) => a - b);
  const lines = [
    "# Error codes",
    "",
    "<!-- Generated from packages/contracts/errors/catalog.ts by `npm run docs:errors`; do not edit by hand. -->",
    "",
    "Every failure is answered as RFC 9457 `application/problem+json`:",
    '`{ "type", "title", "status", "detail", "code", "errors": [ { "path", "message" } ]? }`.',
    "Branch on `code` (stable); `detail` is prose for people and may change. `type` is",
    "`https://waybill.dev/problems/<code>`. The OpenAPI document (`/v1/openapi.json`) lists the codes",
    "each operation can answer. Codes marked *Admin CLI* come from `npm run admin`, not from HTTP.",
    "",
  ];
  for (const status of statuses) {
    const codes = ERROR_CODES.filter((code) => ERROR_CATALOG[code].status === status);
    lines.push(`## ${status} ${ERROR_CATALOG[codes[0]].title}`, "", "| code | when |", "|---|---|");
    for (const code of [...codes].sort()) lines.push(`| \`${code}\` | ${ERROR_CATALOG[code].when.replace(/\|/g, "\\|")} |`);
    lines.push("");
  }
  return lines.join("\n");
}
