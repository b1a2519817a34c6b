// After `tsc -b tsconfig.build.json`: copies what compiled code reads beside itself (SQL
// migrations) into its package's dist/, keeping the layout, so `node services/<name>/dist/main.js`
// finds them exactly where the sources do.
import { cp, readdir } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const PACKAGE_FOLDERS = ["services", "packages"];

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

let copied = 0;
for (const folder of PACKAGE_FOLDERS) {
  for (const pkg of await readdir(path.join(root, folder), { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    const pkgDir = path.join(root, folder, pkg.name);
    for (const dir of await migrationDirs(pkgDir)) {
      await cp(dir, path.join(pkgDir, "dist", path.relative(pkgDir, dir)), { recursive: true });
      copied++;
    }
  }
}
console.log(`copied ${copied} migration folders into their packages' dist/`);
