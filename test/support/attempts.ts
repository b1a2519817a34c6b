// A delivery attempt as the deliverer records it (executions.ts's NewExecution), for tests and
// benchmarks that write attempts straight to PostgreSQL.
import type { NewExecution } from "../../services/dispatcher/executions.js";

export interface AttemptFixture {
  tenantId: string;
  hookId: string;
  eventId: string;
  deliveryId?: string;
  ok?: boolean;
  requestedAt?: Date;
  responseBody?: string;
  responseHeaders?: Record<string, string>;
  nextAttemptAt?: Date | null;
}

/** A first attempt of an event's delivery: answered 200 when `ok` (the default), else 503. */
export function newAttempt({ tenantId, hookId, eventId, ok = true, ...answer }: AttemptFixture): NewExecution {
  return {
    tenantId,
    hookId,
    deliveryId: answer.deliveryId ?? `${eventId}:${hookId}`,
    eventId,
    eventKind: "order.created",
    trigger: "event",
    attempt: 1,
    url: "http://127.0.0.1/",
    result: {
      requestedAt: answer.requestedAt ?? new Date(),
      durationMs: 1,
      ok,
      statusCode: ok ? 200 : 503,
      responseBody: answer.responseBody ?? "",
      responseHeaders: answer.responseHeaders ?? {},
      error: null,
      receiverFault: !ok,
      aborted: false,
    },
    nextAttemptAt: answer.nextAttemptAt ?? null,
  };
}
