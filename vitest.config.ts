import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// The workspace packages (@waybill/*) export their TypeScript sources under this condition and
// compiled dist/ otherwise; tests run the sources.
const SOURCE_CONDITION = "@waybill/source";

export default defineConfig({
  resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] },
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions], externalConditions: [SOURCE_CONDITION] } },
  test: {
    include: ["services/**/*.test.ts", "packages/**/*.test.ts", "test/**/*.test.ts", "clients/cli/src/**/*.test.ts"],
    // Cross-service tests start real servers; give them room but keep the suite bounded.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
