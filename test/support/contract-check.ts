// vitest globalSetup: when the run ends, every answer the edges gave during it (recorded to
// TEST_LOG_DIR/answers-*.jsonl, see answer-recorder.ts) is validated against the OpenAPI
// document the edge serves; any mismatch fails the run with the list.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { openApiSnapshot } from "../../services/edge/openapi-snapshot.js";
import type { RecordedAnswer } from "../../services/edge/middleware/answer-recorder.js";
import { checkAnswers } from "./answer-contract.js";

export async function setup(): Promise<() => Promise<void>> {
  const dir = process.env.TEST_LOG_DIR;
  if (!dir) return async () => {};
  // Runs before log-scan's teardown (teardowns run in reverse), so the files are still there.
  return async () => {
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.startsWith("answers-") && f.endsWith(".jsonl"));
    const answers: RecordedAnswer[] = [];
    for (const file of files) {
      for (const line of (await readFile(path.join(dir, file), "utf8")).split("\n")) if (line) answers.push(JSON.parse(line) as RecordedAnswer);
    }
    if (answers.length === 0) return;
    const report = checkAnswers(openApiSnapshot(), answers);
    process.stdout.write(`\ncontract: ${report.validated} answers validated, ${report.mismatchCount} mismatches\n`);
    if (report.mismatches.length > 0) {
      throw new Error(`answers outside the OpenAPI document (${report.mismatches.length} kinds):\n${report.mismatches.slice(0, 60).join("\n")}`);
    }
  };
}
