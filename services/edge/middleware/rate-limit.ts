// Rate limits per credential (and per client address for the open login endpoint), answered
// 429 with Retry-After and the RateLimit-* headers of the IETF draft. The counts live in the
// store the edge was given (memory, or NATS KV shared by every replica).
import type { Middleware, ParameterizedContext } from "koa";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { RateLimiter } from "../rate-limit-store.js";

export interface RateLimitOptions {
  limiter: RateLimiter;
  /** Requests allowed per window (for the RateLimit-Limit header). */
  points: number;
  /** Who is counted; undefined skips limiting for the request. */
  key(ctx: ParameterizedContext): string | undefined;
}

export function rateLimit(options: RateLimitOptions): Middleware {
  return async (ctx, next) => {
    const key = options.key(ctx);
    if (key === undefined) return next();
    const state = await options.limiter.consume(key);
    if (!state.allowed) {
      const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      setHeaders(ctx, options.points, 0, retryAfter);
      const error = appError("rate_limited", `Too many requests; retry in ${retryAfter} s.`);
      Object.assign(error.headers, { "Retry-After": String(retryAfter) });
      throw error;
    }
    setHeaders(ctx, options.points, state.remaining, Math.ceil(state.msBeforeNext / 1000));
    await next();
  };
}

function setHeaders(ctx: ParameterizedContext, limit: number, remaining: number, resetSeconds: number): void {
  ctx.set("RateLimit-Limit", String(limit));
  ctx.set("RateLimit-Remaining", String(remaining));
  ctx.set("RateLimit-Reset", String(resetSeconds));
}
