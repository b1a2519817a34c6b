// The event stream as React: calls `onEvent` for each event of `kinds` (all when empty) as it
// happens, reconnecting on its own; reports whether the stream is open.
import { streamEvents } from "@waybill/sdk";
import { useEffect, useRef, useState } from "react";
import { useOnline } from "../components/online.js";
import { useSession } from "../session.js";
import type { LoggedEvent } from "./queries.js";

export function useLiveEvents(kinds: string[], onEvent: (event: LoggedEvent) => void): boolean {
  const { session } = useSession();
  const token = useRef(session?.token);
  token.current = session?.token;
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const [open, setOpen] = useState(false);
  const kindKey = kinds.join(",");
  // Offline (or opened offline, without a token) there is nothing to stream; it starts when both return.
  const online = useOnline() && Boolean(session?.token);
  useEffect(() => {
    if (!online) {
      setOpen(false);
      return;
    }
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const e of streamEvents({
          baseUrl: window.location.origin,
          token: () => token.current,
          kinds: kindKey ? kindKey.split(",") : [],
          signal: stop.signal,
          onStatus: (s) => setOpen(s.state === "open"),
        })) {
          handler.current(e.event as unknown as LoggedEvent);
        }
      } catch {
        setOpen(false);
      }
    })();
    return () => stop.abort();
  }, [kindKey, online]);
  return open;
}
