// A Server-Sent Events reader for tests: opens GET /v1/events/stream with fetch and records
// every event (with its raw data) and every comment line.
import { createParser } from "eventsource-parser";
import type { EventEnvelope } from "@waybill/contracts/events/catalog.js";
import { eventually } from "./http.js";

export interface SseEvent {
  id: string;
  event: string;
  data: string;
  /** `data` parsed: the event JSON (API.md, GET /events/stream). */
  json: EventEnvelope;
}

export interface SseReader {
  status: number;
  headers: Headers;
  /** The problem body when the stream was refused. */
  // biome-ignore lint/suspicious/noExplicitAny: a refusal's problem body, read only by the tests that expect one
  problem?: any;
  events: SseEvent[];
  comments: string[];
  /** Resolves when the server ended the stream or the connection broke. */
  ended: Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

export async function openSse(baseUrl: string, options: { token?: string; kind?: string; lastEventId?: string } = {}): Promise<SseReader> {
  const url = new URL(`${baseUrl}/events/stream`);
  if (options.kind !== undefined) url.searchParams.set("kind", options.kind);
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId) headers["last-event-id"] = options.lastEventId;
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  const reader: SseReader = {
    status: response.status,
    headers: response.headers,
    events: [],
    comments: [],
    ended: Promise.resolve(),
    waitFor: (count, timeoutMs = 15_000) => eventually(async () => (reader.events.length >= count ? reader.events : undefined), timeoutMs, 20),
    close: () => abort.abort(),
  };
  if (!response.ok) {
    reader.problem = await response.json();
    return reader;
  }
  const parser = createParser({
    onEvent: (m) => reader.events.push({ id: m.id ?? "", event: m.event ?? "", data: m.data, json: JSON.parse(m.data) }),
    onComment: (c) => reader.comments.push(c.trim()),
  });
  reader.ended = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
    } catch {
      // aborted or cut
    }
  })();
  return reader;
}
