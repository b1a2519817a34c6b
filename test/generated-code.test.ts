// The gRPC code under packages/contracts/gen must be what `npm run gen` makes from proto/ today.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");

async function listFiles(dir: string, base = dir): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))])),
  );
  return nested.flat().sort();
}

describe("generated gRPC code", () => {
  it("is up to date with proto/ (run `npm run gen` when this fails)", async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), "waybill-gen-"));
    try {
      await run(path.join(root, "node_modules/.bin/buf"), ["generate", "--output", out], { cwd: root });
      const fresh = path.join(out, "packages/contracts/gen");
      const committed = path.join(root, "packages/contracts/gen");
      const files = await listFiles(fresh);
      expect(await listFiles(committed)).toEqual(files);
      for (const file of files) {
        const [a, b] = await Promise.all([readFile(path.join(fresh, file), "utf8"), readFile(path.join(committed, file), "utf8")]);
        expect(b, `${file} is stale`).toBe(a);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
