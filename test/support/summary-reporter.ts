// Prints the plain closing line "N passed, N failed[, N skipped]" that CI reads, after vitest's own
// summary, and before it the slowest files (their tests and hooks), where a suite that grows
// slower is shortened first.
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

const SLOWEST_SHOWN = 8;

export default class SummaryReporter implements Reporter {
  private line = "";

  // vitest's default reporter writes its summary in onFinished; ours must come after it.
  onFinished(): void {
    if (this.line) process.stdout.write(this.line);
    this.line = "";
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = errors.length;
    let skipped = 0;
    for (const module of modules) {
      // A file that failed outside its tests (an import, a beforeAll) counts once: its tests were skipped.
      if (module.state() === "failed" && ![...module.children.allTests()].some((t) => t.result().state === "failed")) failed += 1;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failed += 1;
        else skipped += 1;
      }
    }
    const slowest = [...modules]
      .map((m) => ({ file: path.relative(process.cwd(), m.moduleId), seconds: m.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST_SHOWN);
    const total = modules.reduce((sum, m) => sum + m.diagnostic().duration / 1000, 0);
    const slow =
      slowest.length > 1
        ? `\nslowest files (of ${total.toFixed(0)} s in all files): ${slowest.map((s) => `${s.file} ${s.seconds.toFixed(1)} s`).join(", ")}\n`
        : "";
    this.line = `${slow}\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`;
  }
}
