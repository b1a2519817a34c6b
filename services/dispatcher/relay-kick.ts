// Publishes the dispatcher's outbox (its fan-out) as soon as each of its transactions commits.
// The platform relay also wakes on commits, but one that lands while it is publishing waits for
// its next poll (up to OUTBOX_POLL_INTERVAL_MS); deliveries should not. Kicks while a drain runs
// make it run once more afterwards; concurrent drains with the relay's own are safe (SKIP LOCKED).
import { onCommitted, type Pool } from "../platform/db.js";
import type { Logger } from "../platform/logger.js";

export interface RelayKick {
  stop(): Promise<void>;
}

export function kickRelayOnCommit(pool: Pool, drainOnce: () => Promise<unknown>, logger: Logger): RelayKick {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  // The last check of `again` and the reset of `running` happen in one synchronous step, so a
  // kick is never lost between them.
  const run = async () => {
    try {
      while (again && !stopped) {
        again = false;
        await drainOnce();
      }
    } catch (error) {
      // The relay's own loop retries; a failed kick is only a missed shortcut.
      logger.debug({ err: (error as Error).message }, "outbox drain on commit failed");
    } finally {
      running = undefined;
    }
  };

  const unsubscribe = onCommitted(pool, () => {
    if (stopped) return;
    again = true;
    running ??= run();
  });

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      await running;
    },
  };
}
