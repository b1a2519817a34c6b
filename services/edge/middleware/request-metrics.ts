// How long the edge takes to answer, per route: the histogram behind the API latency alerts
// (deploy/monitoring). Labelled by the route's pattern, not its path, so ids never become series.
import type { Middleware } from "koa";
import { Histogram, type Registry } from "prom-client";

export const HTTP_REQUEST_DURATION_METRIC = "waybill_http_request_duration_seconds";
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function requestMetrics(registry: Registry): Middleware {
  const histogram = new Histogram({
    name: HTTP_REQUEST_DURATION_METRIC,
    help: "Time from a request's arrival to its answer, by method, route pattern and status class (2xx, 4xx, 5xx)",
    labelNames: ["method", "route", "status"],
    buckets: BUCKETS,
    registers: [registry],
  });
  return async (ctx, next) => {
    const stop = histogram.startTimer();
    try {
      await next();
    } finally {
      const route = typeof ctx._matchedRoute === "string" ? ctx._matchedRoute : "unmatched";
      stop({ method: ctx.method, route, status: `${Math.floor(ctx.status / 100)}xx` });
    }
  };
}
