// When to try a failed delivery again: the configured schedule (WEBHOOK_RETRY_SCHEDULE), ±20 %
// jitter so that receivers coming back are not hit by every retry at once, and Retry-After on
// 429/503 honoured as far as the jitter band of that step allows.
import { parseDuration } from "@waybill/platform/duration.js";

export const DEFAULT_RETRY_SCHEDULE = "5s,5m,30m,2h,5h,10h,10h";
export const RETRY_JITTER = 0.2;
/** No single step may be longer than a week: nothing sensible waits longer. */
export const MAX_RETRY_STEP_MS = 7 * 24 * 60 * 60 * 1000;
export const MAX_RETRY_STEPS = 50;

/** Parses "5s,5m,30m" into milliseconds; throws with a readable message. */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length > MAX_RETRY_STEPS) throw new Error(`at most ${MAX_RETRY_STEPS} steps`);
  return parts.map((part) => {
    const ms = parseDuration(part);
    if (ms > MAX_RETRY_STEP_MS) throw new Error(`"${part}" is longer than a week`);
    return ms;
  });
}

/** Attempts in all for a schedule: the first one plus one per step. */
export function maxAttempts(schedule: readonly number[]): number {
  return schedule.length + 1;
}

export interface RetryDelayOptions {
  /** Milliseconds the receiver asked for (Retry-After), if it did. */
  retryAfterMs?: number;
  random?: () => number;
}

/**
 * Delay before the attempt after `failedAttempt` (1-based), or null when that was the last one.
 * Retry-After is used when given, clamped into the ±20 % band of the scheduled step.
 */
export function retryDelay(schedule: readonly number[], failedAttempt: number, options: RetryDelayOptions = {}): number | null {
  if (failedAttempt < 1 || failedAttempt > schedule.length) return null;
  const base = schedule[failedAttempt - 1];
  const low = base * (1 - RETRY_JITTER);
  const high = base * (1 + RETRY_JITTER);
  if (options.retryAfterMs !== undefined) return Math.round(Math.min(high, Math.max(low, options.retryAfterMs)));
  const random = options.random ?? Math.random;
  return Math.round(low + (high - low) * random());
}

/** Retry-After as delta-seconds or an HTTP date → milliseconds from `now`; undefined when unusable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date always ends in GMT; anything else that Date.parse might read is not one.
  const at = /GMT$/.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
