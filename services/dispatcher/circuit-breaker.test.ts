import { describe, expect, it } from "vitest";
import { createBreakerRegistry, createCircuitBreaker } from "./circuit-breaker.js";

function clock() {
  let t = 1_000_000;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe("circuit breaker", () => {
  it("opens after the threshold of consecutive failures, not before", () => {
    const c = clock();
    const breaker = createCircuitBreaker({ failureThreshold: 3, openMs: 1_000, now: c.now });
    breaker.onFailure();
    breaker.onFailure();
    breaker.onSuccess(); // a success in between resets the run
    breaker.onFailure();
    breaker.onFailure();
    expect(breaker.admit()).toEqual({ allowed: true });
    breaker.onFailure();
    expect(breaker.state()).toBe("open");
    expect(breaker.admit()).toEqual({ allowed: false, retryInMs: 1_000 });
    expect(breaker.blockedForMs()).toBe(1_000);
  });

  it("lets exactly one trial through when half-open; success closes it", () => {
    const c = clock();
    const breaker = createCircuitBreaker({ failureThreshold: 1, openMs: 1_000, now: c.now });
    breaker.onFailure();
    c.advance(1_000);
    expect(breaker.state()).toBe("halfOpen");
    expect(breaker.blockedForMs()).toBe(0);
    expect(breaker.admit()).toEqual({ allowed: true });
    expect(breaker.admit().allowed).toBe(false);
    breaker.onSuccess();
    expect(breaker.state()).toBe("closed");
    expect(breaker.admit()).toEqual({ allowed: true });
  });

  it("stays open longer after each failed trial, up to the maximum", () => {
    const c = clock();
    const breaker = createCircuitBreaker({ failureThreshold: 1, openMs: 1_000, maxOpenMs: 3_000, now: c.now });
    breaker.onFailure();
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      c.advance(breaker.blockedForMs());
      expect(breaker.admit().allowed).toBe(true);
      breaker.onFailure();
      waits.push(breaker.blockedForMs());
    }
    expect(waits).toEqual([2_000, 3_000, 3_000, 3_000]);
  });

  it("gives the trial back when it did not lead to an attempt", () => {
    const c = clock();
    const breaker = createCircuitBreaker({ failureThreshold: 1, openMs: 1_000, now: c.now });
    breaker.onFailure();
    c.advance(1_000);
    expect(breaker.admit().allowed).toBe(true);
    breaker.release();
    expect(breaker.admit().allowed).toBe(true);
  });
});

describe("breaker registry", () => {
  it("keeps one breaker per hook and forgets healthy ones", () => {
    const registry = createBreakerRegistry({ failureThreshold: 1 });
    registry.get("hook_a").onFailure();
    registry.get("hook_b").onSuccess();
    expect(registry.get("hook_a").state()).toBe("open");
    registry.forgetIfHealthy("hook_a");
    registry.forgetIfHealthy("hook_b");
    expect(registry.size()).toBe(1);
    expect(registry.get("hook_a").state()).toBe("open");
  });
});
