// Prints the plain closing line "N passed, N failed[, N skipped]" that CI reads, after vitest's own summary.
import type { Reporter, TestModule } from "vitest/node";

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
    this.line = `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`;
  }
}
