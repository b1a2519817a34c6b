import os from "node:os";
import path from "node:path";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// The workspace packages (@waybill/*) export their TypeScript sources under this condition and
// compiled dist/ otherwise; tests run the sources.
const SOURCE_CONDITION = "@waybill/source";
const NODE_CONDITIONS = defaultServerConditions.filter((condition) => condition !== "module");

// The services of the run log here (workers inherit it); test/support/log-scan.ts scans it at the end.
process.env.TEST_LOG_DIR ??= path.join(os.tmpdir(), `waybill-test-logs-${process.pid}`);

/** What the root and each project resolve with (projects do not extend the root: see below). */
const resolving = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] },
  // Vitest hands the SSR conditions to its workers as Node's --conditions. Bundlers' "module" is
  // not one Node (or production) uses: with it, Node loaded OpenTelemetry's bundler-only ESM build.
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...NODE_CONDITIONS], externalConditions: [SOURCE_CONDITION] } },
};

/** Settings of every test file, in either project. */
const everyFile = {
  // Cross-service tests start real servers; give them room but keep the suite bounded.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // Library fixes as every service process installs them at start.
  setupFiles: ["./test/support/runtime-fixes-setup.ts"],
};

export default defineConfig({
  ...resolving,
  test: {
    // Two at a time on the 2-core machines: the cross-service files mostly wait on I/O, and one
    // worker (the default there, cores - 1) made the suite take 13 minutes instead of 5.
    maxWorkers: 2,
    // For the "unit" project below: isolation is the pool's setting, not a project's.
    poolOptions: { threads: { isolate: false } },
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // The root's global setup runs once for any selection of files or projects. A project that
    // extended the root would run it again, hence `resolving` and `everyFile` instead.
    globalSetup: ["./test/support/log-scan.ts", "./test/support/contract-check.ts"],
    projects: [
      // Unit files share their workers (threads, not isolated): a fresh process per file cost about
      // 1.2 s of start-up and imports each, three times what their tests take (the 94 files took
      // 66 s that way, 18 s shared). They run first, alone: two pools at once would be four workers.
      {
        ...resolving,
        test: {
          ...everyFile,
          name: "unit",
          include: ["services/**/*.test.ts", "packages/**/*.test.ts", "clients/cli/src/**/*.test.ts"],
          pool: "threads",
          sequence: { groupOrder: 0 },
        },
      },
      // Cross-service files start servers, set environment and patch libraries: one process each.
      {
        ...resolving,
        test: { ...everyFile, name: "system", include: ["test/**/*.test.ts"], pool: "forks", sequence: { groupOrder: 1 } },
      },
    ],
  },
});
