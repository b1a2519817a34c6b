// lastSeenAt is written behind: messages only mark the device in memory and one statement a
// second writes the marks, so a busy device costs no database write per message.
import type { Pool } from "@waybill/platform/db.js";
import type { Logger } from "@waybill/platform/logger.js";
import { recordSightings, type DeviceRef, type Sighting } from "./device-registry.js";

export const LAST_SEEN_FLUSH_MS = 1_000;

export interface LastSeenWriter {
  seen(ref: DeviceRef): void;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function createLastSeenWriter(pool: Pool, logger: Logger, intervalMs = LAST_SEEN_FLUSH_MS): LastSeenWriter {
  // The time as a number, updated in place: a busy device costs no allocation per message.
  let pending = new Map<string, DeviceRef & { at: number }>();
  let flushing: Promise<void> = Promise.resolve();

  const flush = () => {
    flushing = flushing.then(async () => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        await recordSightings(
          pool,
          Array.from(batch.values(), (mark): Sighting => ({ ...mark, at: new Date(mark.at) })),
        );
      } catch (error) {
        // Put them back (newer marks win) and try on the next tick.
        for (const [key, sighting] of batch) if (!pending.has(key)) pending.set(key, sighting);
        logger.warn({ err: (error as Error).message }, "could not write device lastSeenAt; will retry");
      }
    });
    return flushing;
  };
  const timer = setInterval(() => void flush(), intervalMs);
  timer.unref();

  return {
    seen(ref) {
      const key = `${ref.tenantId}\u0000${ref.deviceId}`;
      const mark = pending.get(key);
      if (mark) mark.at = Date.now();
      else pending.set(key, { tenantId: ref.tenantId, deviceId: ref.deviceId, tokenId: ref.tokenId, at: Date.now() });
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
