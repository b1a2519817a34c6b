// The tenant's event log: live as events happen, filtered by kind, by the entity an event is
// about and by the operation (transactionId) it belongs to, all three the API's filters (live
// events are matched here); each opens its detail.
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
import { DEVICE_ID, ENTITY_ID, type EventsFilter, entityIds, eventsPage, type LoggedEvent, type Page, pathOf, usePaged } from "../data/queries.js";
import { useApi } from "../session.js";

/**
 * The server's filters for what the toolbar holds: an entity id (ord_…, prd_…) is `entityId`,
 * anything else a device's id (`deviceId`, e.g. shelf-12); null when the text can be neither.
 */
export function serverFilter(kind: string, entity: string, transactionId: string): EventsFilter | null {
  const filter: EventsFilter = { ...(kind ? { kind } : {}), ...(transactionId ? { transactionId } : {}) };
  if (!entity) return filter;
  if (ENTITY_ID.test(entity)) return { ...filter, entityId: entity };
  // An id of ours still being typed is no device's: nothing to ask until it is whole.
  if (/^(ord|shp|prd|cus|hook)_/.test(entity)) return null;
  return DEVICE_ID.test(entity) ? { ...filter, deviceId: entity } : null;
}

/** Whether a live event belongs in the filtered list (the stream filters by kind only). */
export function matches(event: LoggedEvent, entity: string, transactionId: string): boolean {
  if (transactionId && event.transactionId !== transactionId) return false;
  if (entity && !entityIds(event).includes(entity)) return false;
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
  const filter = serverFilter(kind, entity, transactionId);
  const log = usePaged(["events", filter], filter ? eventsPage(api, filter) : async (): Promise<Page<LoggedEvent>> => ({ data: [], nextCursor: null }));
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
              title={
                !filter
                  ? "Not an order, shipment, product, customer, hook or device id."
                  : kind || entity || transactionId
                    ? "No event matches."
                    : "No events yet."
              }
              cli={`waybill listen${kind ? ` --kind ${kind}` : ""}`}
            >
              {kind || entity || transactionId ? "Change the filters." : "Events appear here as orders, stock, devices and hooks change."}
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
