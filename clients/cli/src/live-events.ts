// The tenant's events as they happen (GET /v1/events/stream), for listen and events tail. Nothing
// is announced before the stream is open: a refusal (a bad kind: 400) or an unreachable server
// before the first connection ends the command with that error; once connected, a dropped stream
// is resumed after the last event seen.
import { streamEvents, WaybillConnectionError, type StreamedEvent } from "@waybill/sdk";
import type { Context } from "./context.js";
import type { StopSignal } from "./stop-signal.js";

export interface LiveEventsOptions {
  kinds: string[];
  after?: string;
  stop: StopSignal;
  /** Called once, when the stream is first open (print "Ready" here). */
  onReady(): void;
}

export async function* liveEvents(context: Context, options: LiveEventsOptions): AsyncGenerator<StreamedEvent> {
  const api = context.api(); // refuses early without a credential
  const { print } = context;
  const connection = new AbortController();
  const end = () => connection.abort();
  options.stop.signal.addEventListener("abort", end, { once: true });
  let opened = false;
  let failedBeforeOpen: unknown;
  let lastEventId = options.after;
  try {
    const events = streamEvents({
      baseUrl: api.baseUrl,
      token: context.token,
      kinds: options.kinds,
      lastEventId: options.after,
      signal: connection.signal,
      onStatus: (status) => {
        if (status.state === "open") {
          if (!opened) {
            opened = true;
            options.onReady();
          }
          print.note(print.c.dim(lastEventId ? `Connected; resuming after ${lastEventId}.` : "Connected; waiting for events."));
        }
        if (status.state === "dropped") {
          if (!opened) {
            failedBeforeOpen = status.error;
            connection.abort();
            return;
          }
          print.note(print.c.yellow(`Stream dropped${status.error ? ` (${(status.error as Error).message})` : ""}; reconnecting…`));
        }
      },
    });
    for await (const event of events) {
      lastEventId = event.id;
      yield event;
    }
  } finally {
    options.stop.signal.removeEventListener("abort", end);
  }
  if (failedBeforeOpen !== undefined && !options.stop.signal.aborted) {
    throw failedBeforeOpen instanceof WaybillConnectionError
      ? failedBeforeOpen
      : new WaybillConnectionError(`${api.baseUrl}/v1/events/stream`, failedBeforeOpen);
  }
}
