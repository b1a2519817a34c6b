// The tenant's event log, filtered by kind, with live updates from the event stream.
import { useQuery } from "@tanstack/react-query";
import { streamEvents } from "@waybill/sdk";
import { useEffect, useState } from "react";
import { when } from "../components/format.js";
import type { EventKind } from "../components/types.js";
import { Empty, QueryView } from "../components/states.js";
import { useApi, useSession } from "../session.js";

interface LoggedEvent {
  id: string;
  kind: string;
  time: string;
  transactionId: string;
}

export default function Events() {
  const api = useApi();
  const { session } = useSession();
  const [kind, setKind] = useState<EventKind | "">("");
  const kinds = useQuery({ queryKey: ["event-kinds"], queryFn: async () => (await api.GET("/event-kinds")).data!.data.map((k) => k.kind) });
  const log = useQuery({
    queryKey: ["events", kind],
    queryFn: async () => (await api.GET("/events", { params: { query: { limit: 50, ...(kind ? { kind } : {}) } } })).data!.data as unknown as LoggedEvent[],
  });
  const [live, setLive] = useState<LoggedEvent[]>([]);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    setLive([]);
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const e of streamEvents({
          baseUrl: window.location.origin,
          token: () => session?.token,
          kinds: kind ? [kind] : [],
          signal: stop.signal,
          onStatus: (s) => setConnected(s.state === "open"),
        })) {
          setLive((previous) => [e.event as unknown as LoggedEvent, ...previous].slice(0, 100));
        }
      } catch {
        setConnected(false);
      }
    })();
    return () => stop.abort();
  }, [kind, session?.token]);
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <label className="filter">
        Kind
        <select value={kind} onChange={(e) => setKind(e.target.value as EventKind | "")}>
          <option value="">all</option>
          {(kinds.data ?? []).map((k) => (
            <option key={k}>{k}</option>
          ))}
        </select>
      </label>
      <p className="muted" role="status">
        {connected ? "Live: new events appear as they happen." : "Connecting to the live stream…"}
      </p>
      <QueryView query={log} what="events">
        {(list) => {
          const seen = new Set(live.map((e) => e.id));
          const all = [...live, ...list.filter((e) => !seen.has(e.id))];
          return all.length === 0 ? (
            <Empty>No events{kind ? ` of kind ${kind}` : ""} yet.</Empty>
          ) : (
            <ol className="timeline" aria-label="Event log">
              {all.map((e) => (
                <li key={e.id}>
                  {when(e.time)} · <strong>{e.kind}</strong> <span className="muted">{e.id}</span>
                </li>
              ))}
            </ol>
          );
        }}
      </QueryView>
    </section>
  );
}
