// The tenant's event log: live as events happen, filtered by kind (the API's filter) and by the
// entity an event is about or the operation (transactionId) it belongs to; each opens its detail.
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { when } from "../components/format.js";
import { Activity } from "../components/icons.js";
import { LoadMore } from "../components/load-more.js";
import { PageHeader } from "../components/page-header.js";
import { Empty, QueryView } from "../components/states.js";
import { useEventKinds } from "../data/kinds.js";
import { useLiveEvents } from "../data/live.js";
import { entityIds, eventsPage, type LoggedEvent, pathOf, usePaged } from "../data/queries.js";
import { useApi } from "../session.js";

export function matches(event: LoggedEvent, entity: string, transactionId: string): boolean {
  if (transactionId && event.transactionId !== transactionId) return false;
  if (entity && !entityIds(event).some((id) => id.toLowerCase().includes(entity.toLowerCase()))) return false;
  return true;
}

export default function Events() {
  const api = useApi();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const kind = params.get("kind") ?? "";
  const entity = params.get("entity") ?? "";
  const transactionId = params.get("transactionId") ?? "";
  const kinds = useEventKinds();
  const log = usePaged(["events", kind], eventsPage(api, kind || undefined));
  const [live, setLive] = useState<LoggedEvent[]>([]);
  const open = useLiveEvents(kind ? [kind] : [], (e) => {
    client.setQueryData(["event", e.id], e);
    setLive((previous) => [e, ...previous].slice(0, 200));
  });
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
    if (name === "kind") setLive([]);
  };
  const seen = new Set(live.map((e) => e.id));
  const all = [...live.filter((e) => !kind || e.kind === kind), ...(log.rows ?? []).filter((e) => !seen.has(e.id))].filter((e) =>
    matches(e, entity, transactionId),
  );
  return (
    <section aria-labelledby="events-title">
      <PageHeader
        titleId="events-title"
        title="Events"
        description={open ? "Live: new events appear as they happen." : "Connecting to the live stream…"}
        actions={
          transactionId ? (
            <button type="button" onClick={() => set("transactionId", "")}>
              Show every operation
            </button>
          ) : undefined
        }
      />
      <search className="toolbar" aria-label="Filter events">
        <label className="search-field">
          Entity id
          <input
            type="search"
            value={entity}
            onChange={(e) => set("entity", e.target.value.trim())}
            placeholder="ord_…, prd_…, shelf-12"
            autoCapitalize="none"
          />
        </label>
        <label>
          Kind
          <select value={kind} onChange={(e) => set("kind", e.target.value)}>
            <option value="">All kinds</option>
            {(kinds.data ?? []).map((k) => (
              <option key={k.kind}>{k.kind}</option>
            ))}
          </select>
        </label>
      </search>
      {transactionId && (
        <p className="muted">
          Events of operation <span className="id">{transactionId}</span>
        </p>
      )}
      <QueryView query={{ ...log.query, data: log.rows }} what="events">
        {() =>
          all.length === 0 ? (
            <Empty
              icon={Activity}
              title={kind || entity || transactionId ? "No loaded event matches." : "No events yet."}
              cli={`waybill listen${kind ? ` --kind ${kind}` : ""}`}
            >
              {kind || entity || transactionId ? "Load more, or change the filters." : "Events appear here as orders, stock, devices and hooks change."}
            </Empty>
          ) : (
            <DataList<LoggedEvent>
              label="Event log"
              rows={all}
              rowKey={(e) => e.id}
              columns={[
                { header: "Kind", card: "title", cell: (e) => <Link to={`/events/${e.id}`}>{e.kind}</Link> },
                { header: "Time", cell: (e) => <span className="nowrap muted">{when(e.time)}</span> },
                {
                  header: "About",
                  cell: (e) => {
                    const ids = entityIds(e);
                    return ids.length === 0
                      ? "—"
                      : ids.map((id) => {
                          const to = pathOf(id) ?? (e.deviceId === id ? `/devices/${encodeURIComponent(id)}` : undefined);
                          return to ? (
                            <Link key={id} to={to} className="id">
                              {id}{" "}
                            </Link>
                          ) : (
                            <span key={id} className="id">
                              {id}{" "}
                            </span>
                          );
                        });
                  },
                },
                { header: "Event id", card: "hidden", cell: (e) => <span className="id">{e.id}</span> },
              ]}
            />
          )
        }
      </QueryView>
      {log.rows && <LoadMore hasMore={log.hasMore} loading={log.loadingMore} onMore={log.more} shown={all.length} />}
    </section>
  );
}
