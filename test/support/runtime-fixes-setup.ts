// vitest setupFiles: every test process installs the runtime fixes as every service process does
// at start (packages/platform/runtime-fixes.ts), so in-process services run their libraries as
// production runs them. Logged with the services' log of the run (environment.ts).
import path from "node:path";
import { createLogger, logDestination } from "../../packages/platform/logger.js";
import { installRuntimeFixes } from "../../packages/platform/runtime-fixes.js";

const logDir = process.env.TEST_LOG_DIR;
installRuntimeFixes({
  logger: createLogger(
    "test-setup",
    process.env.TEST_LOG_LEVEL ?? (logDir ? "debug" : "silent"),
    logDir ? logDestination(path.join(logDir, `worker-${process.pid}.log`)) : undefined,
  ),
});
