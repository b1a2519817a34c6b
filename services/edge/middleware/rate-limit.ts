// Rate limits per credential (and per client address for the open login endpoint), answered
// 429 with Retry-After and the RateLimit-* headers of the IETF draft.
import type { Middleware, ParameterizedContext } from "koa";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { RateLimitedError } from "../../platform/errors.js";

export interface RateLimitOptions {
  points: number;
  durationSeconds: number;
  /** Who is counted; undefined skips limiting for the request. */
  key(ctx: ParameterizedContext): string | undefined;
}

export function rateLimit(options: RateLimitOptions): Middleware {
  const limiter = new RateLimiterMemory({ points: options.points, duration: options.durationSeconds });
  return async (ctx, next) => {
    const key = options.key(ctx);
    if (key === undefined) return next();
    let state: RateLimiterRes;
    try {
      state = await limiter.consume(key);
    } catch (rejected) {
      if (!(rejected instanceof RateLimiterRes)) throw rejected;
      const retryAfter = Math.max(1, Math.ceil(rejected.msBeforeNext / 1000));
      setHeaders(ctx, options.points, 0, retryAfter);
      const error = new RateLimitedError("rate_limited", `Too many requests; retry in ${retryAfter} s.`);
      Object.assign(error.headers, { "Retry-After": String(retryAfter) });
      throw error;
    }
    setHeaders(ctx, options.points, state.remainingPoints, Math.ceil(state.msBeforeNext / 1000));
    await next();
  };
}

function setHeaders(ctx: ParameterizedContext, limit: number, remaining: number, resetSeconds: number): void {
  ctx.set("RateLimit-Limit", String(limit));
  ctx.set("RateLimit-Remaining", String(remaining));
  ctx.set("RateLimit-Reset", String(resetSeconds));
}
