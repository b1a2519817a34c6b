// A circuit breaker per hook: after a run of failures (timeouts, refused connections, 5xx, 429)
// the hook's deliveries are held back for a while instead of tying up delivery slots on a
// receiver that is down; then one trial delivery decides whether it is back. Held-back
// deliveries are not attempts: they wait and keep their place in the retry schedule.

export const BREAKER_FAILURE_THRESHOLD = 5;
export const BREAKER_OPEN_MS = 5_000;
export const BREAKER_MAX_OPEN_MS = 5 * 60_000;

export interface CircuitBreakerOptions {
  failureThreshold?: number;
  openMs?: number;
  maxOpenMs?: number;
  now?: () => number;
}

export type Admission = { allowed: true } | { allowed: false; retryInMs: number };

export interface CircuitBreaker {
  /** May a delivery start now? In half-open state only one (the trial) may. */
  admit(): Admission;
  /** Without taking the trial: how long until deliveries may start (0 when they may now). */
  blockedForMs(): number;
  onSuccess(): void;
  onFailure(): void;
  /** Gives back an admission that did not lead to an attempt (e.g. the hook was paused). */
  release(): void;
  state(): "closed" | "open" | "halfOpen";
}

export function createCircuitBreaker(options: CircuitBreakerOptions = {}): CircuitBreaker {
  const threshold = options.failureThreshold ?? BREAKER_FAILURE_THRESHOLD;
  const baseOpenMs = options.openMs ?? BREAKER_OPEN_MS;
  const maxOpenMs = options.maxOpenMs ?? BREAKER_MAX_OPEN_MS;
  const now = options.now ?? Date.now;
  let failures = 0;
  let openUntil = 0;
  let openMs = baseOpenMs;
  let tripped = false; // open or half-open
  let trialInFlight = false;

  const state = () => (!tripped ? "closed" : now() < openUntil ? "open" : "halfOpen");
  // Those not taking the trial come back after another open period: the trial may take as long
  // as the receiver's timeout, and coming back sooner would only bounce them again.
  const halfOpenWait = () => openMs;

  return {
    admit() {
      const current = state();
      if (current === "closed") return { allowed: true };
      if (current === "open") return { allowed: false, retryInMs: openUntil - now() };
      if (trialInFlight) return { allowed: false, retryInMs: halfOpenWait() };
      trialInFlight = true;
      return { allowed: true };
    },
    blockedForMs() {
      const current = state();
      if (current === "open") return openUntil - now();
      return current === "halfOpen" && trialInFlight ? halfOpenWait() : 0;
    },
    onSuccess() {
      failures = 0;
      tripped = false;
      trialInFlight = false;
      openMs = baseOpenMs;
    },
    onFailure() {
      if (tripped) {
        // A failed trial (or a late failure of a delivery started before the trip): longer pause.
        if (trialInFlight) openMs = Math.min(maxOpenMs, openMs * 2);
        trialInFlight = false;
        openUntil = now() + openMs;
        return;
      }
      failures += 1;
      if (failures >= threshold) {
        tripped = true;
        openUntil = now() + openMs;
      }
    },
    release() {
      trialInFlight = false;
    },
    state,
  };
}

/** One breaker per hook, created on first use and forgotten while healthy (bounded memory). */
export interface BreakerRegistry {
  get(hookId: string): CircuitBreaker;
  /** Drops a hook's breaker when it is closed with no failures counted. */
  forgetIfHealthy(hookId: string): void;
  /** How long a hook's breaker still holds its deliveries back (0 without a breaker), without creating one. */
  blockedForMs(hookId: string): number;
  size(): number;
}

export function createBreakerRegistry(options: CircuitBreakerOptions = {}): BreakerRegistry {
  const breakers = new Map<string, { breaker: CircuitBreaker; healthy: () => boolean }>();
  return {
    get(hookId) {
      let entry = breakers.get(hookId);
      if (!entry) {
        const breaker = createCircuitBreaker(options);
        let clean = true;
        const tracked: CircuitBreaker = {
          ...breaker,
          onSuccess: () => {
            clean = true;
            breaker.onSuccess();
          },
          onFailure: () => {
            clean = false;
            breaker.onFailure();
          },
        };
        entry = { breaker: tracked, healthy: () => clean && breaker.state() === "closed" };
        breakers.set(hookId, entry);
      }
      return entry.breaker;
    },
    forgetIfHealthy(hookId) {
      if (breakers.get(hookId)?.healthy()) breakers.delete(hookId);
    },
    blockedForMs(hookId) {
      return breakers.get(hookId)?.breaker.blockedForMs() ?? 0;
    },
    size: () => breakers.size,
  };
}
