// One delivery attempt, start to end: read the hook as it is now (status, url, secret, since when
// it is active), decide whether this delivery is due, sign with the secret read now, send, and
// record the attempt with its next due time. Used by the DELIVERIES consumer and by synchronous
// test deliveries. The read (with the signing) and the record of concurrent attempts are batched;
// the send is each attempt's own.
import { LRUCache } from "lru-cache";
import type { Pool, PoolClient } from "@waybill/platform/db.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { DeliveryMessage } from "./delivery-message.js";
import { createBatcher } from "@waybill/platform/batcher.js";
import { deliveryStatesFromRows, deliveryStatesRead, type DeliveryState } from "./delivery-state.js";
import { withSigningLocks } from "./signing-lock.js";
import { recordExecutions, type Execution, type NewExecution, type Trigger } from "./executions.js";
import { maxAttempts, parseRetryAfter, retryDelay } from "./retry-schedule.js";
import { SecretUnavailableError, type SecretBox } from "./secrets.js";
import type { Sender, SendResult } from "./sender.js";
import { deliveryHeaders } from "./signing.js";
import { endDeliveryClientSpan, traceDeliveryRequest } from "./delivery-tracing.js";
import type { DeliverySigner } from "./fan-out.js";
import type { HookChanges } from "./hook-changes.js";

/** A redelivery this much before its recorded due time is taken as due (clock skew, timers). */
export const DUE_TOLERANCE_MS = 250;
/**
 * How long an attempt's record may wait for others to share its statement (see `record`). Each
 * statement costs PostgreSQL a fixed part (its commit, and the hooks' counters updated once per
 * batch) besides its rows: `npm run bench:record-cost` gave 108, 54 and 36 µs of its CPU per row
 * in batches of 4, 16 and 48. In bench:webhooks (two runs each, a throw-away count), the
 * statement an attempt was recorded by held 45.6 attempts on average with 2 ms, 60.1 with 6 ms.
 */
export const RECORD_LINGER_MS = 6;
/** Opened secrets kept in memory, one per hook and sealed value (a rotation seals a new value). */
export const OPENED_SECRETS_MAX = 10_000;
/**
 * How long a delivery signed when its event was taken in may wait in its hook's lane and still go
 * with that signature; one that waited longer reads its hook's state again when attempted. (A
 * change of any hook meanwhile makes it read again too: see hook-changes.ts.)
 */
export const PRESIGNED_MAX_AGE_MS = 5_000;

export type AttemptOutcome =
  | {
      kind: "dropped";
      reason: "hook gone" | "hook paused" | "before resume" | "already delivered" | "attempts exhausted" | "left its queue" | "moved to its queue";
    }
  | { kind: "notYet"; delayMs: number }
  | { kind: "aborted" }
  | { kind: "attempted"; execution: Execution; retryInMs: number | null; receiverFault: boolean };

/** A delivery to attempt: a DELIVERIES message, or a test delivery (one attempt, never retried). */
export type Delivery = Omit<DeliveryMessage, "trigger"> & { trigger: "event" | "manual" | "recover" | "test" };

export interface DelivererDeps {
  db: Pool;
  secrets: SecretBox;
  sender: Sender;
  /** Delays after each failed attempt (WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  logger: Logger;
  /** Without it, nothing is signed at intake: every attempt reads its hook's state. */
  hookChanges?: Pick<HookChanges, "mark">;
  /**
   * Called in the transaction that records failed unordered fan-out attempts with a retry due
   * (`deliveryIds`), after the record: moves those whose hook is now `perEntity` into their
   * entities' queues (ordered-redelivery.ts). Without it, they wait for their retry unordered.
   */
  orderRetries?: (db: PoolClient, deliveryIds: string[]) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

export interface Deliverer {
  /** `held` is freed once the receiver has answered (or failed to), before the attempt is recorded. */
  attempt(delivery: Delivery, signal?: AbortSignal, held?: HeldPlace): Promise<AttemptOutcome>;
  /**
   * Signs new events' deliveries with their hooks' state as the event intake read it, under their
   * signing locks (fan-out.ts): their first attempt goes with it instead of reading the state
   * again, if no hook changed since the read (hook-changes.ts) and it starts within
   * PRESIGNED_MAX_AGE_MS.
   */
  presigner: DeliverySigner;
}

export function createDeliverer(deps: DelivererDeps): Deliverer {
  const now = deps.now ?? Date.now;
  // Concurrent attempts share their reads and writes: one statement for many (see batcher.ts).
  const prepare = createBatcher((deliveries: Delivery[]) =>
    withSigningLocks(
      deps.db,
      deliveries.map((d) => d.hookId),
      deliveryStatesRead(deliveries),
      (rows) => signAttempts(deliveries, deliveryStatesFromRows(rows, deliveries.length)),
    ),
  );
  // Records linger up to RECORD_LINGER_MS for company: nothing a receiver or a user sees waits
  // for them (the lane place is free once the receiver answered), and each statement's commit is
  // the larger part of its cost in small batches. A test delivery (its caller waits for the
  // answer) and a per-entity queue's delivery (its entity's next one waits) go at once.
  const record = createBatcher(recordAttempts, { lingerMs: RECORD_LINGER_MS, urgent: (a) => a.urgent });

  /**
   * One statement for the batch; a transaction when it holds a failed unordered attempt with a
   * retry due: ordering may have been turned on while that attempt was on its way, after the
   * change had moved the retries recorded by then into their queues (hooks.ts). The record locks
   * the attempt's hook row, so it sees that change, and its retry joins its entity's queue in the
   * same commit: an event about that entity taken in afterwards waits behind it.
   */
  function recordAttempts(attempts: RecordRequest[]): Promise<(Execution | null)[]> {
    const executions = attempts.map((a) => a.execution);
    const retried = deps.orderRetries ? attempts.filter((a) => a.unorderedRetry).map((a) => a.execution.deliveryId) : [];
    if (retried.length === 0) return recordExecutions(deps.db, executions);
    return withTransaction(deps.db, async (db) => {
      const recorded = await recordExecutions(db, executions);
      await deps.orderRetries!(db, retried);
      return recorded;
    });
  }
  // Opening a sealed secret (AES-256-GCM) for every batch repeats the same work for the same
  // answer on every delivery; the plain secret is in this process's memory to sign with either
  // way. Kept per hook with the sealed value it was opened from: a rotated secret is opened anew
  // and the old one never used again. (A key made of both was a long new string to hash per delivery.)
  const openedSecrets = new LRUCache<string, { sealed: string; secret: string }>({ max: OPENED_SECRETS_MAX });

  /**
   * Decides each delivery from its state as read now; those to send are signed before the
   * transaction ends, while their hooks' signing locks are held against a rotation
   * (signing-lock.ts), so nothing is signed with a secret whose rotation has committed.
   */
  function signAttempts(deliveries: Delivery[], states: (DeliveryState | undefined)[]): Prepared[] {
    const unavailable = new Set<string>(); // each hook's unopenable secret reported once per batch
    const signedAt = now();
    return deliveries.map((delivery, i) => {
      const state = states[i];
      const decision = decide(delivery, state, signedAt);
      if (decision.kind !== "send") return decision;
      const secret = openSecret(delivery.hookId, state!.secretSealed, unavailable);
      if (secret === undefined) return { ...decision, headers: null };
      return { ...decision, headers: deliveryHeaders(delivery.hookId, secret, delivery.eventJson, signedAt) };
    });
  }

  /** The hook's plain secret, or undefined (reported once per `unavailable` set) when it cannot be opened. */
  function openSecret(hookId: string, sealed: string, unavailable: Set<string>): string | undefined {
    const opened = openedSecrets.get(hookId);
    if (opened !== undefined && opened.sealed === sealed) return opened.secret;
    if (unavailable.has(hookId)) return undefined;
    try {
      const secret = deps.secrets.open(sealed, hookId);
      openedSecrets.set(hookId, { sealed, secret });
      return secret;
    } catch (error) {
      if (!(error instanceof SecretUnavailableError)) throw error;
      unavailable.add(hookId);
      deps.logger.error({ hookId }, error.message);
      return undefined;
    }
  }

  // New events' deliveries signed at intake (presign), until their first attempt takes them.
  const presigned = new WeakMap<Delivery, { url: string; headers: Record<string, string>; signedAt: number; mark: number }>();
  const presigner: DeliverySigner = {
    mark: () => deps.hookChanges?.mark(),
    sign(toSign, mark) {
      const unavailable = new Set<string>();
      const signedAt = now();
      for (const { delivery, url, secretSealed } of toSign) {
        // A secret that cannot be opened is left to the attempt, which records that.
        const secret = openSecret(delivery.hookId, secretSealed, unavailable);
        if (secret === undefined) continue;
        presigned.set(delivery, { url, headers: deliveryHeaders(delivery.hookId, secret, delivery.eventJson, signedAt), signedAt, mark });
      }
    },
  };

  /** The delivery's signature from its intake, if it has one still valid: no hook changed since, not too old. */
  function takePresigned(delivery: Delivery): Prepared | undefined {
    const signed = presigned.get(delivery);
    if (signed === undefined) return undefined;
    presigned.delete(delivery);
    if (deps.hookChanges?.mark() !== signed.mark || now() - signed.signedAt > PRESIGNED_MAX_AGE_MS) return undefined;
    return { kind: "send", url: signed.url, attempt: 1, headers: signed.headers };
  }

  function decide(delivery: Delivery, state: DeliveryState | undefined, at: number): Decision {
    if (!state) return { kind: "skip", outcome: { kind: "dropped", reason: "hook gone" } };
    if (state.status !== "active") return { kind: "skip", outcome: { kind: "dropped", reason: "hook paused" } };
    // Queued before the hook was paused (and resumed since): it receives only events from its resume on.
    if (delivery.trigger === "event" && occurredBefore(delivery, state.activeSince))
      return { kind: "skip", outcome: { kind: "dropped", reason: "before resume" } };
    // A per-entity delivery whose queue no longer holds it was finished, or replaced by a
    // recovery's or manual retry's delivery of its event, which is sent in its turn instead.
    if (!state.queued) return { kind: "skip", outcome: { kind: "dropped", reason: "left its queue" } };
    // Ordering was turned on while it waited for a retry: a copy in its entity's queue goes instead.
    if (state.movedToQueue) return { kind: "skip", outcome: { kind: "dropped", reason: "moved to its queue" } };
    // Another delivery of the event (a recovery, a manual retry, the fan-out) reached the hook.
    if (state.eventDelivered) return { kind: "skip", outcome: { kind: "dropped", reason: "already delivered" } };
    if (state.lastAttempt !== null) {
      // Seen before: a redelivery after a crash, or the retry the last attempt asked for.
      if (state.lastOutcome === "succeeded") return { kind: "skip", outcome: { kind: "dropped", reason: "already delivered" } };
      if (state.lastNextAttemptAt === null) return { kind: "skip", outcome: { kind: "dropped", reason: "attempts exhausted" } };
      const wait = state.lastNextAttemptAt.getTime() - at;
      if (wait > DUE_TOLERANCE_MS) return { kind: "skip", outcome: { kind: "notYet", delayMs: wait } };
    }
    const attempt = (state.lastAttempt ?? 0) + 1;
    const limit = delivery.trigger === "event" ? maxAttempts(deps.schedule) : 1;
    if (attempt > limit) return { kind: "skip", outcome: { kind: "dropped", reason: "attempts exhausted" } };
    return { kind: "send", url: state.url, attempt };
  }

  // Attempts of a delivery in progress here, by delivery id. A copy of an event that arrives while
  // its delivery is on its way (sent, not recorded yet) would read no execution and be sent again;
  // it waits for that attempt instead and then reads what it recorded.
  // A plain object, not a Map: a Map with entries coming and going this fast keeps what passed
  // through it from being collected (see slot-set.ts); an object's table does not.
  const inProgress: Record<string, InProgress | undefined> = Object.create(null);

  return {
    presigner,
    attempt(delivery, signal, held) {
      const earlier = inProgress[delivery.deliveryId];
      const entry: InProgress = { done: undefined };
      inProgress[delivery.deliveryId] = entry;
      entry.done = attemptInTurn(delivery, entry, earlier, signal, held);
      return entry.done;
    },
  };

  /**
   * One attempt, once any earlier attempt of the same delivery here has ended: its state read (or
   * the signature from its intake taken), the request, `held` freed, the record. Then it is
   * forgotten as in progress (unless a later copy has taken its place) in its own `finally`: a
   * callback on its promise was a closure and a promise more per delivery.
   */
  async function attemptInTurn(
    delivery: Delivery,
    entry: InProgress,
    earlier: InProgress | undefined,
    signal?: AbortSignal,
    held?: HeldPlace,
  ): Promise<AttemptOutcome> {
    try {
      if (earlier) await earlier.done?.then(nothing, nothing);
      const prepared = takePresigned(delivery) ?? (await prepare(delivery));
      if (prepared.kind === "skip") return prepared.outcome;
      const { url, attempt, headers } = prepared;

      const span = headers ? traceDeliveryRequest(headers, url, attempt) : undefined;
      const result: SendResult = headers
        ? await deps.sender.send(delivery.hookId, url, delivery.eventJson, headers, signal)
        : {
            requestedAt: new Date(now()),
            durationMs: 0,
            ok: false,
            statusCode: null,
            responseBody: null,
            responseHeaders: {},
            error: "secret unavailable",
            receiverFault: false,
            aborted: false,
          };
      held?.free();
      endDeliveryClientSpan(span, result);
      if (result.aborted) return { kind: "aborted" };

      const retryInMs =
        result.ok || delivery.trigger !== "event"
          ? null
          : retryDelay(deps.schedule, attempt, { retryAfterMs: parseRetryAfter(result.retryAfter, now()), random: deps.random });
      const trigger: Trigger = delivery.trigger === "event" ? (attempt === 1 ? "event" : "retry") : delivery.trigger;
      const ordered = typeof delivery.entity === "string";
      const execution = await record({
        urgent: delivery.trigger === "test" || ordered,
        unorderedRetry: retryInMs !== null && !ordered,
        execution: {
          tenantId: delivery.tenantId,
          hookId: delivery.hookId,
          deliveryId: delivery.deliveryId,
          eventId: delivery.eventId,
          eventKind: delivery.eventKind,
          trigger,
          attempt,
          url,
          result,
          nextAttemptAt: retryInMs === null ? null : new Date(now() + retryInMs),
        },
      });
      if (!execution) return { kind: "dropped", reason: "hook gone" };
      return { kind: "attempted", execution, retryInMs, receiverFault: result.receiverFault };
    } finally {
      if (inProgress[delivery.deliveryId] === entry) delete inProgress[delivery.deliveryId];
    }
  }
}

const nothing = () => {};

/** What an attempt holds while its request is out (its lane place), freed once the receiver has answered. */
export interface HeldPlace {
  free(): void;
}

/** An attempt of a delivery in progress here; `done` is its promise. */
interface InProgress {
  done: Promise<AttemptOutcome> | undefined;
}

/** An attempt to record, and whether its record may wait for company. */
interface RecordRequest {
  execution: NewExecution;
  urgent: boolean;
  /** A failed attempt of an unordered delivery, with a retry due. */
  unorderedRetry: boolean;
}

type Decision = { kind: "skip"; outcome: AttemptOutcome } | { kind: "send"; url: string; attempt: number };
/** A decided delivery; one to send carries its signed headers (null: the secret cannot be opened). */
type Prepared = Exclude<Decision, { kind: "send" }> | (Extract<Decision, { kind: "send" }> & { headers: Record<string, string> | null });

/** Did the delivery's event occur before `since`? (Unknown times count as not.) */
function occurredBefore(delivery: Delivery, since: Date): boolean {
  let time = delivery.eventTime ?? undefined;
  if (time === undefined) {
    try {
      time = (JSON.parse(delivery.eventJson) as { time?: string }).time;
    } catch {
      return false;
    }
  }
  const at = time === undefined ? NaN : Date.parse(time);
  return !Number.isNaN(at) && at < since.getTime();
}
