// X-Request-Id accepted or generated, echoed and logged; every request runs in its own
// operation context so that logs and downstream calls carry the ids.
import type { Middleware } from "koa";
import { contextFrom, REQUEST_ID_HEADER, runInContext } from "../../platform/context.js";
import type { Logger } from "../../platform/logger.js";

export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const context = contextFrom(ctx.get(REQUEST_ID_HEADER) || undefined, undefined);
    ctx.set("X-Request-Id", context.requestId);
    const started = performance.now();
    await runInContext(context, async () => {
      try {
        await next();
      } finally {
        const durationMs = Math.round((performance.now() - started) * 10) / 10;
        const level = ctx.status >= 500 ? "error" : "debug";
        logger[level]({ method: ctx.method, path: ctx.path, status: ctx.status, durationMs }, "request");
      }
    });
  };
}
