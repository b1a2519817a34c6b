// When a hook's lane is full, its further deliveries go back to JetStream with a delay. Giving
// them all the same delay would bring them back together, most only to bounce again (a busy
// loop of nak/redeliver). Instead each one reserves the next slot the lane is expected to have:
// at the lane's recent pace (average run time / concurrency) behind what it already holds and
// what was handed back before. Bounced deliveries then return about as fast as they can be taken.
import { LRUCache } from "lru-cache";

export const PACER_MIN_DELAY_MS = 100;
/** How far ahead the lane's present backlog may push the first reservation. */
export const PACER_BACKLOG_HORIZON_MS = 5_000;
export const PACER_MAX_DELAY_MS = 30_000;
/** Assumed run time of a hook whose lane has not finished anything yet. */
export const PACER_DEFAULT_AVERAGE_MS = 10;
export const PACER_HOOKS_MAX = 10_000;

export interface OverflowPacer {
  /** Delay for one more delivery to a hook whose lane holds `backlog` and runs `perHook` at once. */
  delayFor(hookId: string, backlog: number, averageMs: number | undefined, perHook: number): number;
}

export function createOverflowPacer(now: () => number = Date.now): OverflowPacer {
  const reservedUntil = new LRUCache<string, number>({ max: PACER_HOOKS_MAX });
  return {
    delayFor(hookId, backlog, averageMs, perHook) {
      const slot = (averageMs ?? PACER_DEFAULT_AVERAGE_MS) / perHook;
      const t = now();
      // Reservations left from an earlier burst that already passed do not count.
      const start = Math.max(reservedUntil.get(hookId) ?? 0, t + Math.min(PACER_BACKLOG_HORIZON_MS, backlog * slot));
      const until = Math.min(t + PACER_MAX_DELAY_MS, start + slot);
      reservedUntil.set(hookId, until);
      return Math.max(PACER_MIN_DELAY_MS, until - t);
    },
  };
}
