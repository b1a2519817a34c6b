// Builds the shipped client: src/main.ts with the SDK, commander and every other dependency in
// one ESM file (dist/main.js), so that the packed tarball installs with nothing to fetch and
// starts without resolving hundreds of modules. Type checking is `npm run typecheck`.
import { rmSync } from "node:fs";
import { build } from "esbuild";

rmSync("dist", { recursive: true, force: true });

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/main.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  legalComments: "linked",
  // CommonJS dependencies (commander) call require() for Node's own modules.
  banner: { js: 'import { createRequire as __waybillRequire } from "node:module"; const require = __waybillRequire(import.meta.url);' },
  logLevel: "warning",
});
