// Every failure leaves the edge as RFC 9457 problem+json with a stable code; anything that is
// not an AppError is a fault of the service: logged, answered 500 without internals.
import type { Middleware } from "koa";
import { AppError, MethodNotAllowedError, NotFoundError, NotImplementedError, toAppError } from "@waybill/platform/errors.js";
import type { Logger } from "@waybill/platform/logger.js";

export function problemResponses(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new NotFoundError("route_not_found", `No route ${ctx.method} ${ctx.path}.`);
      }
      // The router answered 405 itself (with Allow set); give it our shape and keep the header.
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new MethodNotAllowedError(
          `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get("Allow")}.`,
          String(ctx.response.get("Allow")),
        );
      }
      if (ctx.status === 501 && ctx.body === undefined) throw new NotImplementedError("method_not_implemented", `The method ${ctx.method} is not implemented.`);
    } catch (thrown) {
      const error = koaHttpError(thrown) ?? toAppError(thrown);
      if (error.status >= 500) logger.error({ err: thrown }, "request failed");
      ctx.status = error.status;
      // A body we refused to read is still on the socket; closing it keeps the next request on
      // this connection from being parsed out of that body.
      if (!ctx.req.complete) ctx.set("Connection", "close");
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      ctx.type = "application/problem+json";
      ctx.body = error.toProblem();
    }
  };
}

/** Koa and its router throw http-errors (405, 501); give them our shape. */
function koaHttpError(thrown: unknown): AppError | undefined {
  if (thrown instanceof AppError || typeof thrown !== "object" || thrown === null) return undefined;
  const status = (thrown as { status?: unknown; expose?: unknown }).status;
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  const error = new (class extends AppError {
    override readonly status = status as number;
    override readonly title = (thrown as Error).message;
  })(status === 405 ? "method_not_allowed" : "bad_request", (thrown as Error).message);
  return error;
}
