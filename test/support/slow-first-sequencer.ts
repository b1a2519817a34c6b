// The order test files start in: the few that run longest first, then vitest's own order.
// Vitest runs files longest first by the durations it cached from earlier runs; a fresh clone (CI)
// has none, and it falls back to the largest files first. The chaos files are small (a few lines
// calling a runner) and run for minutes, so they started last: in a fresh-clone run on a slow
// 2-core machine (2026-11-29), chaos.test.ts ran alone for its last minute while the other worker
// had nothing left, and the suite took 857 s.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Longest first, as measured in that run: chaos-network 113 s, console-pages 112, console-flows
 * 64, chaos 67. Each chaos file starts beside a browser file rather than beside the other
 * chaos file, so that two whole systems under load never share the machine's two cores.
 */
export const SLOW_FILES = ["test/chaos-network.test.ts", "test/console-pages.test.ts", "test/console-flows.test.ts", "test/chaos.test.ts"];

/** Where a file goes: its place in SLOW_FILES, or after all of them. */
export function slowRank(moduleId: string): number {
  const path = moduleId.replaceAll("\\", "/");
  const rank = SLOW_FILES.findIndex((file) => path.endsWith(`/${file}`));
  return rank < 0 ? SLOW_FILES.length : rank;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array#sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => slowRank(a.moduleId) - slowRank(b.moduleId));
  }
}
