// Runs an ES module script in a fresh Node, as the services run (the project's TypeScript through
// tsx), with V8 flags such as --expose-gc: for tests that measure a process from its start.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Resolves with what the script printed, trimmed; rejects when it fails or runs over a minute. */
export async function runModuleScript(script: string, flags: string[] = []): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, ["--conditions=@waybill/source", "--import", "tsx", ...flags, "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return stdout.trim();
}
