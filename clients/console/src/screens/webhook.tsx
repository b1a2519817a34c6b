// One webhook: test, pause or resume, rotate its secret (asked first, the new one shown once),
// delete (asked first), recover with presets, and its attempts filtered by outcome, each with the
// request and the response (as text) and a retry that refreshes the list.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Execution, Hook } from "@waybill/sdk";
import { useEffect, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { CodeBlock } from "../components/code-block.js";
import { Confirm } from "../components/dialog.js";
import { ago, pretty, when } from "../components/format.js";
import { Pause, Play, RotateCw, Send } from "../components/icons.js";
import { LoadMore } from "../components/load-more.js";
import { PageHeader } from "../components/page-header.js";
import { SecretOnce } from "../components/secret-once.js";
import { StatusPill, statusLabel } from "../components/status.js";
import { Empty, ErrorState, problemText, QueryView } from "../components/states.js";
import { findEvent, usePaged } from "../data/queries.js";
import { useApi } from "../session.js";
import { hookState } from "./webhooks.js";

const OUTCOMES = ["all", "succeeded", "failed"] as const;
/** After a retry or a recovery the attempts are re-read every second until its attempts show, for at most this long. */
const ATTEMPTS_WATCH_MS = 60_000;
/** Attempts the list's first page holds: a recovery's watch ends once that many of its attempts show. */
const ATTEMPTS_PAGE = 50;

/** Attempts the console waits to see: `expected` new ones with `trigger`, none of those `known` before. */
interface AttemptsWatch {
  trigger: "manual" | "recover";
  known: Set<string>;
  expected: number;
  until: number;
  /** The notice when the minute is up, given how many showed. */
  late(made: number): string;
}

/** What POST …/retry answered: the JSON of CONTRACTS.md §2, or whatever text an older edge sent. */
export function retryAnswer(text: string): { eventId?: string; queued?: boolean } {
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === "object" && body !== null ? (body as { eventId?: string; queued?: boolean }) : {};
  } catch {
    return {};
  }
}

export default function WebhookDetail() {
  const { id = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const outcome = (params.get("outcome") ?? "all") as (typeof OUTCOMES)[number];
  const api = useApi();
  const client = useQueryClient();
  const navigate = useNavigate();
  const path = { params: { path: { id } } };
  const hook = useQuery({ queryKey: ["hook", id], queryFn: async () => (await api.GET("/hooks/{id}", path)).data! });
  // A retry's or recovery's attempts are made by the dispatcher a moment later (longer when it is
  // busy): until they show, the attempts that were there before are `known` and the list is
  // re-read every second.
  const [awaiting, setAwaiting] = useState<AttemptsWatch>();
  const executions = usePaged(
    ["executions", id],
    async (cursor) =>
      (await api.GET("/hooks/{id}/executions", { params: { path: { id }, query: { limit: ATTEMPTS_PAGE, ...(cursor ? { cursor } : {}) } } })).data!,
    { refetchInterval: awaiting ? 1_000 : undefined },
  );
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["hook", id] });
    void client.invalidateQueries({ queryKey: ["executions", id] });
    void client.invalidateQueries({ queryKey: ["hooks"] });
  };
  const [secret, setSecret] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const status = useMutation({
    mutationFn: async (next: "active" | "paused") => (await api.PUT("/hooks/{id}", { ...path, body: { status: next } })).data!,
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: async () => (await api.POST("/hooks/{id}/rotate", path)).data!,
    onSuccess: (r) => {
      setSecret(r.secret);
      setNotice(undefined);
    },
  });
  const remove = useMutation({
    mutationFn: async () => api.DELETE("/hooks/{id}", { ...path, parseAs: "text" }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["hooks"] });
      navigate("/webhooks");
    },
  });
  const test = useMutation({ mutationFn: async () => (await api.POST("/hooks/{id}/test", path)).data!, onSuccess: refresh });
  const watchFor = (trigger: AttemptsWatch["trigger"], expected: number, late: AttemptsWatch["late"]) =>
    setAwaiting({ trigger, expected, late, known: new Set((executions.rows ?? []).map((e) => e.id)), until: Date.now() + ATTEMPTS_WATCH_MS });
  const retry = useMutation({
    // Read as text: the answer is JSON (202), parsed here so an older edge's plain text never breaks it.
    mutationFn: async (executionId: string) =>
      retryAnswer(
        String((await api.POST("/hooks/{id}/executions/{executionId}/retry", { params: { path: { id, executionId } }, parseAs: "text" })).data ?? ""),
      ),
    onSuccess: (answer) => {
      setNotice(`Delivery queued again${answer.eventId ? ` for event ${answer.eventId}` : ""}. The new attempt appears below.`);
      watchFor("manual", 1, () => "Delivery queued again, but its attempt has not been made within a minute. It shows here once it is: reload the page later.");
      refresh();
    },
  });
  useEffect(() => {
    if (!awaiting) return;
    const made = (executions.rows ?? []).filter((e) => e.trigger === awaiting.trigger && !awaiting.known.has(e.id)).length;
    if (made >= awaiting.expected) {
      setAwaiting(undefined);
      void client.invalidateQueries({ queryKey: ["hook", id] });
      return;
    }
    const giveUp = setTimeout(() => {
      setAwaiting(undefined);
      setNotice(awaiting.late(made));
    }, awaiting.until - Date.now());
    return () => clearTimeout(giveUp);
  }, [awaiting, executions.rows, client, id]);
  const recover = useMutation({
    mutationFn: async (since: string) => (await api.POST("/hooks/{id}/recover", { ...path, body: { since } })).data!,
    onSuccess: (r) => {
      const queued = `${r.queued} ${r.queued === 1 ? "event" : "events"} queued for redelivery${r.truncated ? "; more remain in the window, recover again" : ""}`;
      setNotice(`${queued}.${r.queued > 0 ? " Their attempts appear below." : ""}`);
      if (r.queued > 0)
        watchFor(
          "recover",
          Math.min(r.queued, ATTEMPTS_PAGE),
          (made) => `${queued}. ${made} of their attempts made within a minute; the rest show here once made: reload the page later.`,
        );
      refresh();
    },
  });
  const failure = status.error ?? rotate.error ?? test.error ?? retry.error ?? recover.error ?? remove.error;
  const all = executions.rows ?? [];
  const lastSuccess = all.find((e) => e.outcome === "succeeded");
  const shown = all.filter((e) => outcome === "all" || e.outcome === outcome);
  const openExecution = params.get("execution");
  return (
    <QueryView query={hook} what="the webhook">
      {(h: Hook) => (
        <section aria-labelledby="hook-title">
          <PageHeader
            titleId="hook-title"
            back={{ to: "/webhooks", label: "Webhooks" }}
            title={h.name}
            status={
              <>
                <StatusPill status={hookState(h)} testId="hook-status" />
                {all[0]?.outcome === "failed" && <StatusPill status="failing" />}
              </>
            }
            description={
              <>
                <code>{h.on}</code> → <span className="wrap-anywhere">{h.url}</span>
              </>
            }
            actions={
              <>
                <button type="button" className="primary" onClick={() => test.mutate()} disabled={test.isPending}>
                  <Send size={18} aria-hidden="true" />
                  {test.isPending ? "Sending test…" : "Send test"}
                </button>
                {h.status === "active" ? (
                  <button type="button" onClick={() => status.mutate("paused")}>
                    <Pause size={18} aria-hidden="true" />
                    Pause
                  </button>
                ) : (
                  <button type="button" onClick={() => status.mutate("active")}>
                    <Play size={18} aria-hidden="true" />
                    Resume
                  </button>
                )}
                <Confirm
                  trigger={
                    <>
                      <RotateCw size={18} aria-hidden="true" />
                      Rotate secret
                    </>
                  }
                  title={`Rotate the signing secret of ${h.name}?`}
                  description="The current secret stops signing at once: the receiver must switch to the new one, which is shown only once."
                  action="Rotate secret"
                  onConfirm={() => rotate.mutate()}
                />
                <Confirm
                  trigger="Delete"
                  title={`Delete ${h.name}?`}
                  description="Nothing more is delivered to it, and its attempts are gone with it. This cannot be undone."
                  action="Delete webhook"
                  onConfirm={() => remove.mutate()}
                />
              </>
            }
          />
          {failure && <ErrorState error={failure} />}
          {secret && <SecretOnce label="New signing secret" value={secret} />}
          {notice && (
            <p className="notice" role="status">
              {notice}
            </p>
          )}
          {test.data && (
            <p className="notice" role="status">
              Test delivery: {test.data.outcome}, status {test.data.statusCode ?? "none"}, {test.data.durationMs} ms
              {test.data.error ? ` (${test.data.error})` : ""}
            </p>
          )}
          <div className="grid-2">
            <article className="panel" aria-labelledby="hook-facts">
              <h2 id="hook-facts">Details</h2>
              <dl className="facts">
                <dt>State</dt>
                <dd>
                  {statusLabel(hookState(h))}
                  {h.disabledReason ? `: ${h.disabledReason}` : ""}
                </dd>
                <dt>Attempts</dt>
                <dd>
                  {h.successCount} succeeded · {h.errorCount} failed
                </dd>
                <dt>Last run</dt>
                <dd>{when(h.lastRunAt)}</dd>
                <dt>Ordering</dt>
                <dd>{h.ordering === "perEntity" ? "One at a time per entity" : "In parallel"}</dd>
                <dt>Id</dt>
                <dd className="id">{h.id}</dd>
              </dl>
            </article>
            <article className="panel stack" aria-labelledby="hook-recover">
              <h2 id="hook-recover">Recover missed deliveries</h2>
              <p className="muted">Redeliver every {h.on} event in a window that never reached this hook with success.</p>
              <div className="row">
                <button type="button" onClick={() => recover.mutate(new Date(Date.now() - 3_600_000).toISOString())} disabled={recover.isPending}>
                  Last hour
                </button>
                <button type="button" onClick={() => recover.mutate(new Date(Date.now() - 86_400_000).toISOString())} disabled={recover.isPending}>
                  Last day
                </button>
                <button type="button" onClick={() => lastSuccess && recover.mutate(lastSuccess.requestedAt)} disabled={recover.isPending || !lastSuccess}>
                  Since the last success
                </button>
              </div>
              <form
                className="form-grid"
                aria-label="Recover from a time"
                onSubmit={(event) => {
                  event.preventDefault();
                  recover.mutate(new Date(String(new FormData(event.currentTarget).get("since"))).toISOString());
                }}
              >
                <label>
                  Or since
                  <input name="since" type="datetime-local" required />
                </label>
                <button type="submit" disabled={recover.isPending}>
                  Recover
                </button>
              </form>
            </article>
          </div>
          <article className="panel" aria-labelledby="hook-attempts">
            <div className="panel-head">
              <h2 id="hook-attempts">Attempts</h2>
              <fieldset className="segmented">
                <legend className="visually-hidden">Outcome</legend>
                {OUTCOMES.map((o) => (
                  <button
                    key={o}
                    type="button"
                    className="small"
                    aria-pressed={outcome === o}
                    onClick={() => {
                      const next = new URLSearchParams(params);
                      if (o === "all") next.delete("outcome");
                      else next.set("outcome", o);
                      setParams(next, { replace: true });
                    }}
                  >
                    {o === "all" ? "All" : statusLabel(o)}
                  </button>
                ))}
              </fieldset>
            </div>
            <QueryView query={{ ...executions.query, data: executions.rows }} what="attempts">
              {() =>
                shown.length === 0 ? (
                  <Empty title={outcome === "all" ? "No deliveries yet." : `No ${outcome} attempts loaded.`} cli={`waybill hooks test ${h.id}`}>
                    Send a test to see a delivery here.
                  </Empty>
                ) : (
                  <ul className="executions" aria-label="Attempts">
                    {shown.map((e) => (
                      <li key={e.id}>
                        <ExecutionDetails execution={e} hook={h} open={e.id === openExecution} onRetry={() => retry.mutate(e.id)} retrying={retry.isPending} />
                      </li>
                    ))}
                  </ul>
                )
              }
            </QueryView>
            {executions.rows && <LoadMore hasMore={executions.hasMore} loading={executions.loadingMore} onMore={executions.more} shown={shown.length} />}
          </article>
        </section>
      )}
    </QueryView>
  );
}

function ExecutionDetails({
  execution: e,
  hook,
  open,
  onRetry,
  retrying,
}: {
  execution: Execution;
  hook: Hook;
  open: boolean;
  onRetry(): void;
  retrying: boolean;
}) {
  const api = useApi();
  const [expanded, setExpanded] = useState(open);
  const event = useQuery({ queryKey: ["event", e.eventId], queryFn: () => findEvent(api, e.eventId).then((found) => found ?? null), enabled: expanded });
  return (
    <details open={open} onToggle={(ev) => setExpanded(ev.currentTarget.open)} data-testid={`execution-${e.id}`}>
      <summary>
        <StatusPill status={e.outcome} />
        <strong>{e.eventKind}</strong>
        <span className="muted">
          status {e.statusCode ?? "none"} · {e.durationMs} ms · attempt {e.attempt} · {e.trigger} · {ago(e.requestedAt)}
        </span>
      </summary>
      <div className="detail">
        {e.error && <p className="alert">Error: {e.error}</p>}
        {e.nextAttemptAt && <p className="muted">Next attempt {when(e.nextAttemptAt)}.</p>}
        <p className="row">
          <Link to={`/events/${e.eventId}`}>Event {e.eventId}</Link>
          <button type="button" onClick={onRetry} disabled={retrying}>
            <RotateCw size={16} aria-hidden="true" />
            Retry this delivery
          </button>
        </p>
        <h3>Request</h3>
        <CodeBlock
          title="Request headers"
          text={pretty({
            method: "POST",
            url: e.url,
            "content-type": "application/json",
            "x-service-webhook-id": hook.id,
            "x-service-signature": "t=…,v1=… (HMAC-SHA256)",
          })}
        />
        <CodeBlock
          title="Request body"
          text={event.data ? pretty(event.data) : event.isPending ? "Loading the event…" : problemText(event.error ?? "The event is no longer in the log.")}
        />
        <h3>Response</h3>
        <CodeBlock title="Response headers" text={pretty(e.responseHeaders ?? {})} />
        <CodeBlock title="Response body" text={e.responseBody ?? "(none)"} testId="response-body" />
      </div>
    </details>
  );
}
