// The HTTP server span of a request (tracing on): named by method and route template once the
// router matched one, with the semantic-convention attributes a tracing backend groups by.
import type { Context } from "koa";
import type { Logger } from "@waybill/platform/logger.js";
import { isTracingAny, startSpan, type TraceSpan } from "@waybill/platform/tracing.js";

/** The request's server span, child of the client's traceparent; undefined (and no work) when off. */
export function httpServerSpan(logger: Logger, ctx: Context, parent: string | undefined): TraceSpan | undefined {
  if (!isTracingAny()) return undefined;
  return startSpan(logger, ctx.method, "server", parent, {
    "http.request.method": ctx.method,
    "url.path": ctx.path,
    "url.scheme": ctx.protocol,
    "user_agent.original": ctx.get("user-agent") || undefined,
  });
}

export function endHttpServerSpan(span: TraceSpan, ctx: Context): void {
  // @koa/router leaves the matched route's template here (/v1/orders/:id).
  const route = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  if (typeof route === "string") {
    span.updateName(`${ctx.method} ${route}`);
    span.setAttributes({ "http.route": route });
  }
  span.setAttributes({ "http.response.status_code": ctx.status });
  if (ctx.status >= 500) span.fail(new Error(`HTTP ${ctx.status}`));
  span.end();
}
