// Regenerates the SDK's copy of the OpenAPI document and its TypeScript types:
//   npm run gen:sdk            writes clients/sdk/openapi.json and clients/sdk/src/schema.ts
//   npm run gen:sdk -- --out D writes both under D instead (the freshness test compares them)
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { promisify } from "node:util";
import { openApiSnapshot } from "../services/edge/openapi-snapshot.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const sdk = path.join(root, "clients/sdk");

export async function generateSdk(outDir: string): Promise<void> {
  await mkdir(path.join(outDir, "src"), { recursive: true });
  const documentPath = path.join(outDir, "openapi.json");
  await writeFile(documentPath, `${JSON.stringify(openApiSnapshot(), null, 2)}\n`);
  await run(process.execPath, [openapiTypescriptBin(), documentPath, "--output", path.join(outDir, "src/schema.ts"), "--root-types", "--export-type"], {
    cwd: sdk,
  });
}

/**
 * openapi-typescript needs TypeScript 5's compiler API, where the project builds with TypeScript 7:
 * both sit in scripts/sdk-generator, a package of their own, resolved from there.
 */
function openapiTypescriptBin(): string {
  const require = createRequire(path.join(root, "scripts/sdk-generator/package.json"));
  const manifest = require.resolve("openapi-typescript/package.json");
  const { bin } = require(manifest) as { bin: string | Record<string, string> };
  return path.join(path.dirname(manifest), typeof bin === "string" ? bin : bin["openapi-typescript"]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = process.argv.indexOf("--out");
  const out = flag >= 0 ? path.resolve(process.argv[flag + 1]) : sdk;
  await generateSdk(out);
  console.log(`SDK schema written to ${path.relative(root, out) || "."}`);
}
