// One reader's view of the tenant's events on EVENTS, for GET /v1/events/stream: an ordered
// consumer (ephemeral, in memory, no acks) created for the connection and deleted when it ends.
// Messages are fetched a bounded batch at a time and the next batch is asked for only after the
// reader has taken the previous one, so a slow reader holds at most one batch in this process.
import { decodeTime } from "ulid";
import type { Consumer, ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import type { Bus } from "@waybill/platform/nats.js";

/** Messages asked for per pull: what one slow reader can hold in memory here. */
export const FEED_BATCH = 64;
/** How long one pull waits on the server for new events before asking again. */
export const FEED_WAIT_MS = 5_000;
/**
 * How much earlier than its id's timestamp an event may have been stored (clocks of the host that
 * made the id and of the NATS server). Finding a Last-Event-ID starts scanning this far back.
 */
export const RESUME_CLOCK_SKEW_MS = 60_000;
/** Consumers the server removes by itself when an edge died without deleting them (at least this long idle). */
export const FEED_INACTIVE_THRESHOLD_MS = 60_000;

const MSG_ID_HEADER = "Nats-Msg-Id";

export interface TenantEvent {
  id: string;
  kind: string;
  /** The message as stored: the very bytes a webhook delivery POSTs. */
  json: string;
}

export interface EventFeedRequest {
  tenantId: string;
  /** Only these kinds; every kind when empty. */
  kinds: readonly string[];
  /** Resume strictly after this event. */
  lastEventId?: string;
}

export interface EventFeed extends AsyncIterable<TenantEvent> {
  /** Ends the iteration (a pending pull returns at once) and deletes the consumer. */
  close(): Promise<void>;
}

/**
 * `idleAllowanceMs`: how long the edge may leave the consumer without pulling (a reader being
 * waited for); the server must not remove it meanwhile.
 */
export async function openEventFeed(bus: Bus, request: EventFeedRequest, idleAllowanceMs = 0): Promise<EventFeed> {
  const inactiveThresholdMs = Math.max(FEED_INACTIVE_THRESHOLD_MS, 2 * idleAllowanceMs);
  const { topology } = bus;
  const tenantSubjects = topology.eventSubject(request.tenantId, ">");
  const subjectPrefix = tenantSubjects.slice(0, -1);
  // nats-server 2.9 takes one filter subject per consumer: one kind is filtered by the server,
  // several in this process.
  const filter = request.kinds.length === 1 ? topology.eventSubject(request.tenantId, request.kinds[0]) : tenantSubjects;
  const wanted = request.kinds.length > 1 ? new Set(request.kinds) : undefined;
  const start = request.lastEventId ? await resumePoint(bus, tenantSubjects, request.lastEventId) : { deliver_policy: "new" as const };
  const consumer = await bus.js.consumers.get(topology.eventsStream, {
    filter_subjects: filter,
    inactive_threshold: inactiveThresholdMs,
    ...start,
  } as never);

  let closed = false;
  let current: ConsumerMessages | undefined;
  return {
    async *[Symbol.asyncIterator]() {
      while (!closed) {
        current = await consumer.fetch({ max_messages: FEED_BATCH, expires: FEED_WAIT_MS });
        if (closed) current.stop();
        try {
          for await (const m of current) {
            const kind = m.subject.slice(subjectPrefix.length);
            if (wanted && !wanted.has(kind)) continue;
            const json = m.string();
            yield { id: idOf(m, json), kind, json };
          }
        } catch (error) {
          if (!closed) throw error;
        }
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      current?.stop();
      await deleteConsumer(consumer);
    },
  };
}

function idOf(m: JsMsg, json: string): string {
  return m.headers?.get(MSG_ID_HEADER) || String((JSON.parse(json) as { id?: unknown }).id);
}

async function deleteConsumer(consumer: Consumer): Promise<void> {
  // Already gone (the server dropped it, or NATS is unreachable): the inactive threshold ends it.
  await (consumer as Consumer & { delete(): Promise<boolean> }).delete().catch(() => false);
}

type StartPoint = { deliver_policy?: "new"; opt_start_seq?: number; opt_start_time?: string };

/**
 * Where to resume after `eventId`. The id's ULID timestamp says when it was made; the event was
 * stored on EVENTS after that (the outbox publishes after commit), so a headers-only scan of the
 * tenant's subjects from that time, less the clock skew allowance, finds its stream sequence and
 * delivery resumes at the next one: every event the reader had not seen yet, in stream order.
 * An id that is not on the stream (aged out, or never this tenant's) resumes from its timestamp:
 * events may repeat then (receivers deduplicate by id) but none is lost.
 */
async function resumePoint(bus: Bus, tenantSubjects: string, eventId: string): Promise<StartPoint> {
  const madeAt = decodeTime(eventId.slice(eventId.indexOf("_") + 1).toUpperCase());
  const from = new Date(Math.min(madeAt - RESUME_CLOCK_SKEW_MS, Date.now())).toISOString();
  const scan = await bus.js.consumers.get(bus.topology.eventsStream, {
    filter_subjects: tenantSubjects,
    opt_start_time: from,
    headers_only: true,
    inactive_threshold: FEED_INACTIVE_THRESHOLD_MS,
  } as never);
  try {
    // Bounded by what was stored when the scan began: events arriving meanwhile come after the id.
    let remaining = (await scan.info(true)).num_pending;
    while (remaining > 0) {
      const batch = await scan.fetch({ max_messages: Math.min(remaining, 256), expires: FEED_WAIT_MS });
      let seen = 0;
      for await (const m of batch) {
        seen += 1;
        remaining -= 1;
        if (m.headers?.get(MSG_ID_HEADER) === eventId) {
          batch.stop();
          return { opt_start_seq: m.seq + 1 };
        }
        if (remaining === 0) batch.stop();
      }
      if (seen === 0) break;
    }
  } finally {
    await deleteConsumer(scan);
  }
  return { opt_start_time: from };
}
