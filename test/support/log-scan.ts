// vitest globalSetup: the services of a test run log at debug into TEST_LOG_DIR (see
// environment.ts); when the run ends, every line is scanned for secrets (secret-scan.ts). A
// finding fails the run and keeps the logs; a clean run removes them.
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { findSecrets } from "./secret-scan.js";

export async function setup(): Promise<() => Promise<void>> {
  const dir = process.env.TEST_LOG_DIR;
  if (!dir) return async () => {};
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return async () => {
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".log"));
    let lines = 0;
    const findings: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(dir, file), "utf8");
      lines += text.split("\n").length - 1;
      for (const f of findSecrets(text)) findings.push(`${file}: ${f.kind}: ${f.excerpt}`);
    }
    if (findings.length > 0) {
      throw new Error(`secrets in the test run's logs (${findings.length}; logs kept in ${dir}):\n${findings.slice(0, 30).join("\n")}`);
    }
    process.stdout.write(`\nlog secret scan: ${lines} log lines from ${files.length} files, no secrets\n`);
    await rm(dir, { recursive: true, force: true });
  };
}
