// The shape of every service's main.ts: load config, start, stop cleanly on SIGTERM/SIGINT.
import { z } from "zod";
import { baseConfigShape, ConfigError, loadConfig } from "./config.js";
import { createLogger, logDestination } from "./logger.js";
import { installRuntimeFixes } from "./runtime-fixes.js";

const logSettings = z.object({ LOG_LEVEL: baseConfigShape.LOG_LEVEL, LOG_FILE: baseConfigShape.LOG_FILE });

export interface ServiceHandle {
  stop(): Promise<void>;
}

export const SHUTDOWN_TIMEOUT_MS = 25_000;

export function runMain<C>(name: string, load: () => C, start: (config: C) => Promise<ServiceHandle>): void {
  let config: C;
  try {
    config = load();
    // Before the first gRPC channel or call; logged as the service logs (load checked the settings).
    const { LOG_LEVEL, LOG_FILE } = loadConfig(logSettings, process.env);
    installRuntimeFixes({ logger: createLogger(name, LOG_LEVEL, logDestination(LOG_FILE)) });
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(2);
  }
  // Signals are handled from the first moment: one that arrives while the service is still
  // starting stops it as soon as start() returns, instead of killing it half-way.
  let handle: ServiceHandle | undefined;
  let requested: string | undefined;
  const shutdown = (signal: string) => {
    if (requested) return;
    requested = signal;
    process.stderr.write(`${name}: ${signal} received, draining…\n`);
    const timer = setTimeout(() => {
      process.stderr.write(`${name}: drain took longer than ${SHUTDOWN_TIMEOUT_MS} ms, exiting\n`);
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    if (handle) void stopAndExit(name, handle);
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  start(config).then(
    (started) => {
      handle = started;
      if (requested) void stopAndExit(name, started);
    },
    (error) => {
      // A configuration problem (such as streams another installation owns) says what to set; a stack would bury it.
      const detail = error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(`${name}: failed to start: ${detail}\n`);
      process.exit(1);
    },
  );
}

async function stopAndExit(name: string, handle: ServiceHandle): Promise<void> {
  try {
    await handle.stop();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${name}: error while stopping: ${String(error)}\n`);
    process.exit(1);
  }
}
