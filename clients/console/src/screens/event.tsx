// One event (GET /v1/events/{id}): its JSON (pretty, with copy), the entities it names, the other
// events of its operation (the transactionId filter), and its deliveries to each hook
// (GET /v1/events/{id}/deliveries), with the hooks of its kind that have none yet.
import { useQuery } from "@tanstack/react-query";
import type { Execution, Hook } from "@waybill/sdk";
import { Link, useParams } from "react-router";
import { CodeBlock } from "../components/code-block.js";
import { ago, pretty, when } from "../components/format.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill } from "../components/status.js";
import { Empty, QueryView } from "../components/states.js";
import { entityIds, eventsPage, findEvent, type LoggedEvent, pathOf, readAll } from "../data/queries.js";
import { useApi } from "../session.js";

export default function EventDetail() {
  const { id = "" } = useParams();
  const api = useApi();
  const event = useQuery({ queryKey: ["event", id], queryFn: async () => (await findEvent(api, id)) ?? null });
  const transactionId = event.data?.transactionId;
  const related = useQuery({
    queryKey: ["event-related", id],
    enabled: Boolean(transactionId),
    queryFn: async () => (await readAll(eventsPage(api, { transactionId }), 500)).filter((e) => e.id !== id),
  });
  const deliveries = useQuery({
    queryKey: ["event-deliveries", id],
    enabled: Boolean(event.data),
    queryFn: async () => {
      const [attempts, hooks] = await Promise.all([
        readAll<Execution>(
          async (cursor) =>
            (await api.GET("/events/{id}/deliveries", { params: { path: { id }, query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!,
        ),
        readAll<Hook>(async (cursor) => (await api.GET("/hooks", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!),
      ]);
      // Every hook that got an attempt (newest first), and those of the event's kind that got none yet.
      return hooks
        .filter((hook) => hook.on === event.data?.kind || attempts.some((a) => a.hookId === hook.id))
        .map((hook) => ({ hook, attempts: attempts.filter((a) => a.hookId === hook.id) }));
    },
  });
  return (
    <QueryView query={event} what="the event">
      {(e: LoggedEvent | null) =>
        e === null ? (
          <Empty title={`No event ${id} in the event log.`}>It may be older than the log keeps (30 days by default), or belong to another tenant.</Empty>
        ) : (
          <section aria-labelledby="event-title">
            <PageHeader titleId="event-title" back={{ to: "/events", label: "Events" }} title={e.kind} description={`${when(e.time)} · ${e.id}`} />
            <div className="grid-2">
              <article className="panel" aria-labelledby="event-facts">
                <h2 id="event-facts">About</h2>
                <dl className="facts">
                  <dt>Time</dt>
                  <dd>{when(e.time)}</dd>
                  <dt>Operation</dt>
                  <dd>
                    <Link to={`/events?transactionId=${encodeURIComponent(e.transactionId)}`} className="id">
                      {e.transactionId}
                    </Link>
                  </dd>
                  {entityIds(e).map((entity) => {
                    const to = pathOf(entity) ?? (e.deviceId === entity ? `/devices/${encodeURIComponent(entity)}` : undefined);
                    return (
                      <div key={entity} className="contents">
                        <dt>Entity</dt>
                        <dd>{to ? <Link to={to}>{entity}</Link> : entity}</dd>
                      </div>
                    );
                  })}
                </dl>
              </article>
              <article className="panel" aria-labelledby="event-related">
                <h2 id="event-related">Same operation</h2>
                <QueryView query={related} what="related events">
                  {(list) =>
                    list.length === 0 ? (
                      <p className="muted">No other event belongs to this operation.</p>
                    ) : (
                      <ul className="link-list" data-testid="related-events">
                        {list.map((r) => (
                          <li key={r.id}>
                            <Link to={`/events/${r.id}`}>{r.kind}</Link>
                            <span className="muted nowrap">{ago(r.time)}</span>
                          </li>
                        ))}
                      </ul>
                    )
                  }
                </QueryView>
              </article>
            </div>
            <article className="panel" aria-labelledby="event-deliveries">
              <h2 id="event-deliveries">Deliveries</h2>
              <QueryView query={deliveries} what="deliveries">
                {(perHook) =>
                  perHook.length === 0 ? (
                    <p className="muted">No webhook receives {e.kind}.</p>
                  ) : (
                    <ul className="link-list">
                      {perHook.map(({ hook, attempts }) => (
                        <li key={hook.id}>
                          <Link to={`/webhooks/${hook.id}${attempts[0] ? `?execution=${attempts[0].id}` : ""}`}>{hook.name}</Link>
                          <span className="row">
                            {attempts.length === 0 ? <span className="muted">not delivered</span> : <StatusPill status={attempts[0].outcome} />}
                            <span className="muted">{attempts.length} attempts</span>
                          </span>
                        </li>
                      ))}
                    </ul>
                  )
                }
              </QueryView>
            </article>
            <article className="panel">
              <CodeBlock title="Payload" text={pretty(e)} testId="event-json" />
            </article>
          </section>
        )
      }
    </QueryView>
  );
}
