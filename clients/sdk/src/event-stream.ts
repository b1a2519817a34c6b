// Reads GET /v1/events/stream (Server-Sent Events) with fetch, so a credential can travel in the
// Authorization header (the browser's EventSource cannot send one). Resumes from the last event
// id it saw when the connection drops, with a growing pause between attempts.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { apiRoot, credentialOf, type WaybillClientOptions } from "./client.js";
import { WaybillApiError, WaybillConnectionError, problemFromResponse } from "./errors.js";

export interface StreamedEvent {
  id: string;
  kind: string;
  /** The event exactly as a webhook delivery carries it (the parsed `data:` line). */
  event: Record<string, unknown>;
  /** The `data:` text as received: the body a delivery would POST. */
  raw: string;
}

export interface EventStreamOptions extends WaybillClientOptions {
  /** Only these kinds (all when empty). */
  kinds?: string[];
  /** Resume after this event id. */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reconnect after a dropped connection (default true). Refusals (4xx) are never retried. */
  reconnect?: boolean;
  /**
   * A connection that carries nothing, not even a heartbeat, for this long is taken as dead
   * (a half-open link) and replaced (default 45 s: three of the server's heartbeats).
   */
  idleTimeoutMs?: number;
  /** Told about each (re)connection and each drop, for progress output. */
  onStatus?: (status: { state: "connecting" | "open" | "dropped"; attempt: number; error?: unknown }) => void;
}

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 15_000;
const DEFAULT_IDLE_TIMEOUT_MS = 45_000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

function streamUrl(options: EventStreamOptions): string {
  const url = new URL(`${apiRoot(options.baseUrl ?? "http://127.0.0.1:8080")}/events/stream`);
  if (options.kinds?.length) url.searchParams.set("kind", options.kinds.join(","));
  return url.toString();
}

/** Yields the tenant's events as they happen until the signal aborts. */
export async function* streamEvents(options: EventStreamOptions): AsyncGenerator<StreamedEvent> {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  let lastEventId = options.lastEventId;
  let attempt = 0;
  while (!options.signal?.aborted) {
    attempt += 1;
    options.onStatus?.({ state: "connecting", attempt });
    const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
    const credential = credentialOf(options.token);
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (lastEventId) headers["last-event-id"] = lastEventId;
    // One controller per connection: the caller's signal ends everything, the idle timer only this connection.
    const connection = new AbortController();
    const abortConnection = () => connection.abort(options.signal?.reason);
    options.signal?.addEventListener("abort", abortConnection, { once: true });
    const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const resetIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error(`nothing received for ${Math.round(idleMs / 1000)} s`)), idleMs);
    };
    try {
      resetIdle();
      const response = await fetchImpl(streamUrl(options), { headers, signal: connection.signal });
      if (!response.ok) throw await problemFromResponse(response);
      if (!response.body) throw new Error("the stream answered without a body");
      options.onStatus?.({ state: "open", attempt });
      attempt = 0;
      const queue: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (message) => queue.push(message) });
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        resetIdle();
        parser.feed(decoder.decode(value, { stream: true }));
        while (queue.length > 0) {
          const message = queue.shift()!;
          if (!message.data) continue;
          const event = JSON.parse(message.data) as Record<string, unknown>;
          const id = message.id ?? String(event.id);
          lastEventId = id;
          // The caller's time with the event is not the connection's silence.
          clearTimeout(idle);
          yield { id, kind: message.event ?? String(event.kind), event, raw: message.data };
          resetIdle();
        }
      }
      options.onStatus?.({ state: "dropped", attempt: 1 });
    } catch (error) {
      if (options.signal?.aborted) return;
      if (error instanceof WaybillApiError && error.status < 500 && error.status !== 429) throw error;
      if (options.reconnect === false) throw error instanceof WaybillApiError ? error : new WaybillConnectionError(streamUrl(options), error);
      options.onStatus?.({
        state: "dropped",
        attempt,
        error: connection.signal.aborted && connection.signal.reason instanceof Error ? connection.signal.reason : error,
      });
    } finally {
      clearTimeout(idle);
      options.signal?.removeEventListener("abort", abortConnection);
      connection.abort();
    }
    if (options.reconnect === false) return;
    await sleep(Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.min(attempt, 5)), options.signal);
  }
}
