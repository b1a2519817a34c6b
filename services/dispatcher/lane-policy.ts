// How much each hook's lane may hold, decided from what the lane has shown so far. Every lane
// holds what it is expected to finish within a horizon (HELD_HORIZON_MS for DELIVERIES), up to its share of the held budget:
// busy, healthy hooks keep their lanes fed from memory, slow ones hold little; one whose receiver
// hangs is noticed by how long its lane has gone without finishing anything, before any delivery
// to it has even finished, and then holds next to nothing.

export const MIN_QUEUE_PER_HOOK = 2;
/** A lane whose deliveries take this long (average, or time without a finish) counts as stuck. */
export const STUCK_PACE_MS = 5_000;

/** Before a lane has an average, this long without a finish already sets its pace. */
export const HANG_NOTICE_MS = 200;

export interface LaneStats {
  /** Average run time (undefined until the lane has finished enough runs). */
  averageMs: number | undefined;
  /** How long the lane has run without finishing anything (0 when nothing runs). */
  stalledMs: number;
  /** Hooks with something running or queued, this one included if it has. */
  activeHooks: number;
}

/**
 * Queue places for a hook: its share of `maxHeld` (divided by the busy hooks plus one, so there is
 * always room for one more hook), less for a slow lane, MIN_QUEUE_PER_HOOK for a stuck one. A lane
 * queues what it is expected to finish within `queueWaitMs` (heartbeats
 * keep held messages from being redelivered meanwhile).
 */
export function queueLimit(stats: LaneStats, perHook: number, maxHeld: number, queueWaitMs: number): number {
  const pace = paceOf(stats);
  if (pace !== undefined && pace >= STUCK_PACE_MS) return MIN_QUEUE_PER_HOOK;
  const share = Math.floor(maxHeld / (stats.activeHooks + 1));
  const byPace = pace === undefined ? share : Math.floor((queueWaitMs * perHook) / Math.max(1, pace));
  return Math.max(MIN_QUEUE_PER_HOOK, Math.min(share, byPace));
}

/**
 * A lane's pace: its average run time, or how long it has gone without finishing anything when
 * that is longer (a receiver that starts to hang shows it before any of its deliveries finishes).
 * Not the age of its oldest running delivery: one straggler among deliveries that keep finishing
 * (a slow answer, a pause of the process) would make a healthy lane look hung, and shrink its
 * queue until a burst went through DELIVERIES instead of straight to the receiver.
 */
export function paceOf(stats: LaneStats): number | undefined {
  const pace = Math.max(stats.averageMs ?? 0, stats.stalledMs);
  return pace > 0 && (stats.averageMs !== undefined || stats.stalledMs >= HANG_NOTICE_MS) ? pace : undefined;
}

/** The longest a delivery held back by an open breaker waits before it comes back. */
export const HELD_BACK_MAX_DELAY_MS = 30 * 60_000;
/** The first wait of a delivery held back by an open breaker, doubled each time it finds the breaker open again. */
export const HELD_BACK_FIRST_DELAY_MS = 5_000;

/**
 * How long a delivery that found its hook's breaker open waits before it comes back: until the
 * breaker lets a trial through, and at least twice as long as the last time it came back to an
 * open breaker (its `deliveryCount`-th delivery), up to HELD_BACK_MAX_DELAY_MS. A receiver that
 * stays down keeps every delivery queued for it: coming back at the breaker's pace (at most five
 * minutes) made each of them cost a redelivery that often, which grew with the queue until it
 * took more of the dispatcher and NATS than the healthy hooks' deliveries did.
 */
export function heldBackDelay(blockedForMs: number, deliveryCount: number): number {
  const doublings = Math.min(20, Math.max(0, deliveryCount - 1));
  return Math.max(blockedForMs, Math.min(HELD_BACK_MAX_DELAY_MS, HELD_BACK_FIRST_DELAY_MS * 2 ** doublings));
}

/** Spreads handed-back deliveries so they do not all return in the same instant. */
export function spreadDelay(delayMs: number, random: () => number = Math.random): number {
  return delayMs + random() * Math.max(250, delayMs * 0.5);
}
