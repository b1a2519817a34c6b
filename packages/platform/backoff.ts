// The one retry backoff of the platform: doubling from `baseMs` after each failure, capped at
// `maxMs`, optionally jittered so that many retriers do not come back in the same instant.
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Fraction of the delay drawn at random: 0.5 gives delays between 50 % and 100 % of the step. */
  jitter?: number;
  random?: () => number;
}

/** The delay after `failures` failures in a row (0 gives `baseMs`). */
export function backoffMs(failures: number, { baseMs, maxMs, jitter = 0, random = Math.random }: BackoffOptions): number {
  // The exponent is capped so that a long outage's count cannot overflow to Infinity.
  const step = Math.min(maxMs, baseMs * 2 ** Math.min(failures, 30));
  return jitter > 0 ? step * (1 - jitter + jitter * random()) : step;
}
