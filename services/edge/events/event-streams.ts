// GET /v1/events/stream: serves one tenant's event feed as Server-Sent Events on one connection,
// with heartbeats, a bound on concurrent streams per credential, and the cleanup of the feed's
// consumer whenever the connection ends (the reader left, was too slow, or the edge stops).
import type { ServerResponse } from "node:http";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { openEventFeed, type EventFeed, type EventFeedRequest } from "./event-feed.js";
import { openSse } from "./sse.js";

/** Reconnection delay suggested to EventSource readers. */
export const SSE_RETRY_MS = 2_000;

export interface EventStreamsOptions {
  heartbeatMs: number;
  maxPerCredential: number;
  drainTimeoutMs: number;
}

export interface StreamRequest extends EventFeedRequest {
  credentialId: string;
}

export interface EventStreams {
  /** Streams until the connection ends. Refusals before the first byte are thrown. */
  serve(res: ServerResponse, headers: Record<string, string>, request: StreamRequest): Promise<void>;
  /** Open streams (for tests and metrics). */
  open(): number;
  /** Ends every stream (the edge is stopping). */
  closeAll(): Promise<void>;
}

export function createEventStreams(bus: Bus, logger: Logger, options: EventStreamsOptions, metrics?: Registry): EventStreams {
  const perCredential = new Map<string, number>();
  const live = new Set<{ end(): void; done: Promise<void> }>();
  const registers = metrics ? [metrics] : [];
  new Gauge({
    name: "waybill_edge_event_streams_open",
    help: "Open GET /v1/events/stream connections",
    registers,
    collect() {
      this.set(live.size);
    },
  });
  const dropped = new Counter({
    name: "waybill_edge_event_stream_readers_dropped_total",
    help: "Event stream readers disconnected for staying behind",
    registers,
  });

  function acquire(credentialId: string): () => void {
    const count = perCredential.get(credentialId) ?? 0;
    if (count >= options.maxPerCredential) {
      const error = appError(
        "too_many_streams",
        `This credential already has ${count} open event streams (at most ${options.maxPerCredential}); close one first.`,
      );
      Object.assign(error.headers, { "Retry-After": "5" });
      throw error;
    }
    perCredential.set(credentialId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (perCredential.get(credentialId) ?? 1) - 1;
      if (left <= 0) perCredential.delete(credentialId);
      else perCredential.set(credentialId, left);
    };
  }

  async function serve(res: ServerResponse, headers: Record<string, string>, request: StreamRequest): Promise<void> {
    const release = acquire(request.credentialId);
    let feed: EventFeed;
    try {
      feed = await openEventFeed(bus, request, options.drainTimeoutMs);
    } catch (error) {
      release();
      logger.warn({ err: (error as Error).message }, "event stream could not open its consumer");
      throw appError("events_unavailable", "The event stream is unavailable right now; retry shortly.", { cause: error });
    }
    const channel = openSse(res, headers, {
      drainTimeoutMs: options.drainTimeoutMs,
      retryMs: SSE_RETRY_MS,
      onSlowReader: () => {
        dropped.inc();
        logger.info({ tenantId: request.tenantId }, "event stream reader dropped: it stayed behind too long");
      },
    });
    const heartbeat = setInterval(() => channel.comment("heartbeat"), options.heartbeatMs);
    // Whoever ends the connection, the pending pull returns and the consumer goes.
    void channel.closed.then(() => feed.close());
    const entry = { end: () => channel.end(), done: channel.closed };
    live.add(entry);
    try {
      for await (const event of feed) {
        if (!(await channel.send({ id: event.id, event: event.kind, data: event.json }))) break;
      }
    } catch (error) {
      // The bus failed under the feed: end the response; the reader resumes with Last-Event-ID.
      if (!channel.isClosed()) logger.warn({ err: (error as Error).message }, "event stream feed failed");
    } finally {
      clearInterval(heartbeat);
      live.delete(entry);
      channel.end();
      await feed.close();
      release();
    }
  }

  return {
    serve,
    open: () => live.size,
    async closeAll() {
      const ending = [...live];
      for (const entry of ending) entry.end();
      await Promise.all(ending.map((entry) => entry.done));
    },
  };
}
