// How much each hook's lane may hold, decided from what the lane has shown so far. Busy, healthy
// hooks keep their lanes fed from memory (a round trip through JetStream costs far more than a
// few milliseconds' wait); slow ones hold what they finish within a couple of seconds; one whose
// receiver hangs is noticed by the age of its oldest running delivery, before any delivery to it
// has even finished, and then holds next to nothing.

export const MIN_QUEUE_PER_HOOK = 2;
/** A slow lane queues what it is expected to finish within this time. */
export const MAX_QUEUE_WAIT_MS = 2_000;
/** A lane whose deliveries take this long (average, or oldest running) counts as stuck. */
export const STUCK_PACE_MS = 5_000;

export interface LaneStats {
  /** Average run time (undefined until the lane has finished enough runs). */
  averageMs: number | undefined;
  oldestRunningMs: number;
  /** Hooks with something running or queued, this one included if it has. */
  activeHooks: number;
}

/**
 * Queue places for a hook: its share of `maxHeld` (divided by the busy hooks plus one, so there is
 * always room for one more hook), less for a slow lane, MIN_QUEUE_PER_HOOK for a stuck one.
 */
export function queueLimit(stats: LaneStats, perHook: number, maxHeld: number): number {
  const pace = stats.averageMs;
  if (stats.oldestRunningMs >= STUCK_PACE_MS || (pace ?? 0) >= STUCK_PACE_MS) return MIN_QUEUE_PER_HOOK;
  const share = Math.floor(maxHeld / (stats.activeHooks + 1));
  const byPace = pace === undefined ? share : Math.floor((MAX_QUEUE_WAIT_MS * perHook) / Math.max(1, pace));
  return Math.max(MIN_QUEUE_PER_HOOK, Math.min(share, byPace));
}

/** Spreads handed-back deliveries so they do not all return in the same instant. */
export function spreadDelay(delayMs: number, random: () => number = Math.random): number {
  return delayMs + random() * Math.max(250, delayMs * 0.5);
}
