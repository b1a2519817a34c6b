// The shape of every service's main.ts: load config, start, stop cleanly on SIGTERM/SIGINT.
import { ConfigError } from "./config.js";

export interface ServiceHandle {
  stop(): Promise<void>;
}

export const SHUTDOWN_TIMEOUT_MS = 25_000;

export function runMain<C>(name: string, load: () => C, start: (config: C) => Promise<ServiceHandle>): void {
  let config: C;
  try {
    config = load();
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(2);
  }
  start(config).then(
    (handle) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stderr.write(`${name}: ${signal} received, draining…\n`);
        const timer = setTimeout(() => {
          process.stderr.write(`${name}: drain took longer than ${SHUTDOWN_TIMEOUT_MS} ms, exiting\n`);
          process.exit(1);
        }, SHUTDOWN_TIMEOUT_MS);
        timer.unref();
        handle.stop().then(
          () => process.exit(0),
          (error) => {
            process.stderr.write(`${name}: error while stopping: ${String(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      process.on("SIGINT", () => shutdown("SIGINT"));
    },
    (error) => {
      process.stderr.write(`${name}: failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
