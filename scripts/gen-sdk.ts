// Regenerates the SDK's copy of the OpenAPI document and its TypeScript types:
//   npm run gen:sdk            writes clients/sdk/openapi.json and clients/sdk/src/schema.ts
//   npm run gen:sdk -- --out D writes both under D instead (the freshness test compares them)
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
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
  // openapi-typescript needs TypeScript 5's compiler API: the SDK package pins its own copy.
  const bin = path.join(sdk, "node_modules/.bin/openapi-typescript");
  await run(bin, [documentPath, "--output", path.join(outDir, "src/schema.ts"), "--root-types", "--export-type"], { cwd: sdk });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const flag = process.argv.indexOf("--out");
  const out = flag >= 0 ? path.resolve(process.argv[flag + 1]) : sdk;
  await generateSdk(out);
  console.log(`SDK schema written to ${path.relative(root, out) || "."}`);
}
