// `npm run build` for the tests that run compiled code: one build at a time per checkout, so two
// test files (separate workers) never write the same dist/ files at once. tsc -b is incremental:
// the second caller's build finds everything up to date.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./processes.js";

const run = promisify(execFile);
const LOCK = path.join(tmpdir(), `waybill-build-${createHash("sha256").update(ROOT).digest("hex").slice(0, 12)}.lock`);
/** A lock older than this was left by a killed run. */
const STALE_MS = 5 * 60_000;

export async function buildOnce(): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_MS) rmSync(LOCK, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    await run("npm", ["run", "build"], { cwd: ROOT });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
