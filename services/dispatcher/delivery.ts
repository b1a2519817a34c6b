// One delivery attempt, start to end: read the hook as it is now (status, url, secret), decide
// whether this delivery is due, sign with the secret read now, send, and record the attempt
// with its next due time. Used by the DELIVERIES consumer and by synchronous test deliveries.
// The read and the record of concurrent attempts are batched; the send is each attempt's own.
import type { Queryable } from "../platform/db.js";
import type { Logger } from "../platform/logger.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { createBatcher } from "./batcher.js";
import { loadDeliveryStates, type DeliveryKey, type DeliveryState } from "./delivery-state.js";
import { recordExecutions, type Execution, type NewExecution, type Trigger } from "./executions.js";
import { maxAttempts, parseRetryAfter, retryDelay } from "./retry-schedule.js";
import { SecretUnavailableError, type SecretBox } from "./secrets.js";
import type { Sender, SendResult } from "./sender.js";
import { deliveryHeaders } from "./signing.js";

/** A redelivery this much before its recorded due time is taken as due (clock skew, timers). */
export const DUE_TOLERANCE_MS = 250;

export type AttemptOutcome =
  | { kind: "dropped"; reason: "hook gone" | "hook paused" | "already delivered" | "attempts exhausted" }
  | { kind: "notYet"; delayMs: number }
  | { kind: "aborted" }
  | { kind: "attempted"; execution: Execution; retryInMs: number | null; receiverFault: boolean };

/** A delivery to attempt: a DELIVERIES message, or a test delivery (one attempt, never retried). */
export type Delivery = Omit<DeliveryMessage, "trigger"> & { trigger: "event" | "manual" | "test" };

export interface DelivererDeps {
  db: Queryable;
  secrets: SecretBox;
  sender: Sender;
  /** Delays after each failed attempt (WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  logger: Logger;
  now?: () => number;
  random?: () => number;
}

export interface Deliverer {
  attempt(delivery: Delivery, signal?: AbortSignal): Promise<AttemptOutcome>;
}

export function createDeliverer(deps: DelivererDeps): Deliverer {
  const now = deps.now ?? Date.now;
  // Concurrent attempts share their reads and writes: one statement for many (see batcher.ts).
  const loadState = createBatcher((keys: DeliveryKey[]) => loadDeliveryStates(deps.db, keys));
  const record = createBatcher((attempts: NewExecution[]) => recordExecutions(deps.db, attempts));

  return {
    async attempt(delivery, signal) {
      const state = await loadState(delivery);
      if (!state) return { kind: "dropped", reason: "hook gone" };
      if (state.status !== "active") return { kind: "dropped", reason: "hook paused" };
      if (state.lastAttempt !== null) {
        // Seen before: a redelivery after a crash, or the retry the last attempt asked for.
        if (state.lastOutcome === "succeeded") return { kind: "dropped", reason: "already delivered" };
        if (state.lastNextAttemptAt === null) return { kind: "dropped", reason: "attempts exhausted" };
        const wait = state.lastNextAttemptAt.getTime() - now();
        if (wait > DUE_TOLERANCE_MS) return { kind: "notYet", delayMs: wait };
      }
      const attempt = (state.lastAttempt ?? 0) + 1;
      const limit = delivery.trigger === "event" ? maxAttempts(deps.schedule) : 1;
      if (attempt > limit) return { kind: "dropped", reason: "attempts exhausted" };

      const result = await signAndSend(delivery, state, signal);
      if (result.aborted) return { kind: "aborted" };

      const retryInMs =
        result.ok || delivery.trigger !== "event"
          ? null
          : retryDelay(deps.schedule, attempt, { retryAfterMs: parseRetryAfter(result.retryAfter, now()), random: deps.random });
      const trigger: Trigger = delivery.trigger === "event" ? (attempt === 1 ? "event" : "retry") : delivery.trigger;
      const execution = await record({
        tenantId: delivery.tenantId,
        hookId: delivery.hookId,
        deliveryId: delivery.deliveryId,
        eventId: delivery.eventId,
        eventKind: delivery.eventKind,
        trigger,
        attempt,
        url: state.url,
        result,
        nextAttemptAt: retryInMs === null ? null : new Date(now() + retryInMs),
      });
      if (!execution) return { kind: "dropped", reason: "hook gone" };
      return { kind: "attempted", execution, retryInMs, receiverFault: result.receiverFault };
    },
  };

  async function signAndSend(delivery: Delivery, state: DeliveryState, signal?: AbortSignal): Promise<SendResult> {
    let secret: string;
    try {
      secret = deps.secrets.open(state.secretSealed, delivery.hookId);
    } catch (error) {
      if (!(error instanceof SecretUnavailableError)) throw error;
      deps.logger.error({ hookId: delivery.hookId }, error.message);
      return { requestedAt: new Date(now()), durationMs: 0, ok: false, statusCode: null, responseBody: null, responseHeaders: {}, error: "secret unavailable", receiverFault: false, aborted: false };
    }
    // Signed at send time with the secret read just now: a rotation takes effect at once.
    return deps.sender.send(state.url, delivery.eventJson, deliveryHeaders(delivery.hookId, secret, delivery.eventJson, now()), signal);
  }
}
