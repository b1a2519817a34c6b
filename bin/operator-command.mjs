// Runs an operator command (`npm run admin`, `dead-letters`, `migrate`, `webhook-secrets`) the way this install can:
// the compiled JavaScript in dist/ where tsx is not installed (the image and any production
// install: `npm ci --omit=dev` plus dist/), the TypeScript source through tsx in a checkout with
// its dev tools, where dist/ may be missing or older than the sources. Plain JavaScript, so it
// runs with nothing built.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function hasTsx() {
  try {
    import.meta.resolve("tsx");
    return true;
  } catch {
    return false;
  }
}

/**
 * @param {string} source the command's TypeScript entry, from the repository root
 * @param {string} compiled its compiled entry, from the repository root
 */
export async function runOperatorCommand(source, compiled) {
  if (!hasTsx()) {
    // Same process: the compiled command reads process.argv as if started directly.
    await import(pathToFileURL(path.join(ROOT, compiled)).href);
    return;
  }
  const args = ["--conditions=@waybill/source", "--import", "tsx", path.join(ROOT, source), ...process.argv.slice(2)];
  const child = spawnSync(process.execPath, args, { stdio: "inherit" });
  if (child.error) throw child.error;
  process.exitCode = child.status ?? 1;
}
