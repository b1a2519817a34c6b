// Builds the shipped client: src/main.ts with the SDK, commander and every other dependency in
// one ESM file (dist/main.js), so that the packed tarball installs with nothing to fetch and
// starts without resolving hundreds of modules. Type checking is `npm run typecheck`.
import { mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const OUT_DIR = "dist";
const OUT_FILE = "main.js";
// Written beside and renamed over: a client running from dist/ meanwhile (a test, `npm pack`
// in another process) never sees a missing or half-written file.
const temporary = path.join(OUT_DIR, `.${OUT_FILE}.${process.pid}.tmp`);

mkdirSync(OUT_DIR, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: temporary,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "eof",
  // CommonJS dependencies (commander) call require() for Node's own modules.
  banner: { js: 'import { createRequire as __waybillRequire } from "node:module"; const require = __waybillRequire(import.meta.url);' },
  logLevel: "warning",
});
renameSync(temporary, path.join(OUT_DIR, OUT_FILE));
// Whatever else is in dist/ (an older, unbundled build) would be packed too: only main.js ships.
for (const entry of readdirSync(OUT_DIR)) if (entry !== OUT_FILE && !entry.endsWith(".tmp")) rmSync(path.join(OUT_DIR, entry), { recursive: true, force: true });
