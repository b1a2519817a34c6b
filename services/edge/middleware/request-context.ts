// X-Request-Id accepted or generated, echoed and logged; every request runs in its own
// operation context so that logs and downstream calls carry the ids. X-Transaction-Id lets a
// client group several requests into one operation (their events share it); it is generated
// when absent and always echoed.
import type { Middleware } from "koa";
import { contextFrom, isClientTransactionId, REQUEST_ID_HEADER, runInContext, TRACEPARENT_HEADER, TRANSACTION_ID_HEADER } from "@waybill/platform/context.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import type { Logger } from "@waybill/platform/logger.js";
import { endHttpServerSpan, httpServerSpan } from "./request-span.js";

declare module "koa" {
  interface DefaultState {
    /** The X-Transaction-Id the client sent is malformed (refused by refuseInvalidTransactionId). */
    invalidTransactionId?: boolean;
  }
}

export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    // Sent empty is sent malformed (400), not absent: the client meant an id and its value was lost.
    const present = ctx.req.headers[TRANSACTION_ID_HEADER.toLowerCase()] !== undefined;
    const sent = ctx.get(TRANSACTION_ID_HEADER);
    const valid = present && isClientTransactionId(sent);
    ctx.state.invalidTransactionId = present && !valid;
    const incoming = ctx.get(TRACEPARENT_HEADER) || undefined;
    const span = httpServerSpan(logger, ctx, incoming);
    const context = contextFrom(ctx.get(REQUEST_ID_HEADER) || undefined, valid ? sent : undefined, incoming, span);
    ctx.set("X-Request-Id", context.requestId);
    ctx.set("X-Transaction-Id", context.transactionId);
    const started = performance.now();
    await runInContext(context, async () => {
      try {
        await next();
      } finally {
        const durationMs = Math.round((performance.now() - started) * 10) / 10;
        const level = ctx.status >= 500 ? "error" : "debug";
        logger[level]({ method: ctx.method, path: ctx.path, status: ctx.status, durationMs, traceparent: context.traceparent }, "request");
        if (span) endHttpServerSpan(span, ctx);
      }
    });
  };
}

/** Mounted inside problemResponses: nothing runs under an id the client did not mean. */
export function refuseInvalidTransactionId(): Middleware {
  return async (ctx, next) => {
    if (ctx.state.invalidTransactionId) {
      throw appError("invalid_transaction_id", "X-Transaction-Id must be txn_ followed by 10 to 64 letters and digits.", {
        errors: [{ path: "X-Transaction-Id", message: "txn_ and 10 to 64 of 0-9, A-Z, a-z" }],
      });
    }
    await next();
  };
}
