// After `tsc -p tsconfig.build.json`: copies what the compiled services read beside their code
// (SQL migrations) into dist/, keeping the same layout, so `node dist/services/<name>/main.js`
// finds them exactly where the sources do.
import { cp, readdir } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

async function migrationDirs(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "node_modules" || entry.name === "dist") continue;
    const full = path.join(dir, entry.name);
    if (entry.name === "migrations") found.push(full);
    else found.push(...(await migrationDirs(full)));
  }
  return found;
}

const dirs = await migrationDirs(path.join(root, "services"));
for (const dir of dirs) await cp(dir, path.join(root, "dist", path.relative(root, dir)), { recursive: true });
console.log(`copied ${dirs.length} migration folders into dist/`);
