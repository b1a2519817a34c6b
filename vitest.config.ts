import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["services/**/*.test.ts", "packages/**/*.test.ts", "test/**/*.test.ts", "clients/cli/src/**/*.test.ts"],
    // Cross-service tests start real servers; give them room but keep the suite bounded.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
