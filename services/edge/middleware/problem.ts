// Every failure leaves the edge as RFC 9457 problem+json with a stable code; anything that is
// not an AppError is a fault of the service: logged, answered 500 without internals. The status
// and title of a known code are the catalog's (the edge maps by code, whatever crossed gRPC).
import type { Middleware } from "koa";
import { appError, ERROR_CATALOG, isErrorCode, STATUS_TITLES } from "@waybill/contracts/errors/catalog.js";
import { AppError, toAppError } from "@waybill/platform/errors.js";
import type { Logger } from "@waybill/platform/logger.js";

export function problemResponses(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw appError("route_not_found", `No route ${ctx.method} ${ctx.path}.`);
      }
      // The router answered 405 itself (with Allow set), or 501 to a method no route has (TRACE,
      // CONNECT …): both are the client's mistake, a 405 naming what the path does answer.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        const allow = String(ctx.response.get("Allow") ?? "");
        if (ctx.status === 501) logger.info({ method: ctx.method, path: ctx.path }, "unknown HTTP method refused");
        if (allow === "") throw appError("route_not_found", `No route ${ctx.method} ${ctx.path}.`);
        throw appError("method_not_allowed", `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}.`, { headers: { Allow: allow } });
      }
    } catch (thrown) {
      const error = byCatalog(koaHttpError(thrown) ?? toAppError(thrown));
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

/** The error with its code's status and title from the catalog (unknown codes keep their own). */
function byCatalog(error: AppError): AppError {
  if (!isErrorCode(error.code)) return error;
  const spec = ERROR_CATALOG[error.code];
  if (spec.status === error.status && spec.title === error.title) return error;
  return new AppError(error.code, spec, error.message, { errors: error.errors, headers: error.headers, cause: error });
}

/** Koa and its router throw http-errors (4xx); give them our shape. */
function koaHttpError(thrown: unknown): AppError | undefined {
  if (thrown instanceof AppError || typeof thrown !== "object" || thrown === null) return undefined;
  const status = (thrown as { status?: unknown }).status;
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  const message = (thrown as Error).message;
  return new AppError(status === 405 ? "method_not_allowed" : "bad_request", { status, title: STATUS_TITLES[status] ?? message }, message, { cause: thrown });
}
