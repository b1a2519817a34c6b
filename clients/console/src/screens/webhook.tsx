// One webhook: pause or resume, rotate its secret (shown once), send a test, and its executions
// with status, duration, attempt, the receiver's headers and body (as text), and retry.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useParams } from "react-router";
import { when } from "../components/format.js";
import { SecretOnce } from "../components/secret-once.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

export default function Webhook() {
  const { id = "" } = useParams();
  const api = useApi();
  const client = useQueryClient();
  const path = { params: { path: { id } } };
  const hook = useQuery({ queryKey: ["hook", id], queryFn: async () => (await api.GET("/hooks/{id}", path)).data! });
  const executions = useQuery({
    queryKey: ["executions", id],
    queryFn: async () => (await api.GET("/hooks/{id}/executions", { params: { path: { id }, query: { limit: 50 } } })).data!.data,
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["hook", id] });
    void client.invalidateQueries({ queryKey: ["executions", id] });
    void client.invalidateQueries({ queryKey: ["hooks"] });
  };
  const [secret, setSecret] = useState<string>();
  const status = useMutation({
    mutationFn: async (next: "active" | "paused") => api.PUT("/hooks/{id}", { ...path, body: { status: next } }),
    onSuccess: refresh,
  });
  const rotate = useMutation({ mutationFn: async () => (await api.POST("/hooks/{id}/rotate", path)).data!, onSuccess: (r) => setSecret(r.secret) });
  const test = useMutation({ mutationFn: async () => (await api.POST("/hooks/{id}/test", path)).data!, onSuccess: refresh });
  const retry = useMutation({
    mutationFn: async (executionId: string) => api.POST("/hooks/{id}/executions/{executionId}/retry", { params: { path: { id, executionId } } }),
    onSuccess: () => setTimeout(refresh, 500),
  });
  const recover = useMutation({
    mutationFn: async (since: string) => (await api.POST("/hooks/{id}/recover", { ...path, body: { since } })).data!,
    onSuccess: () => setTimeout(refresh, 500),
  });
  const failure = status.error ?? rotate.error ?? test.error ?? retry.error ?? recover.error;
  return (
    <QueryView query={hook} what="the webhook">
      {(h) => (
        <section aria-labelledby="hook-title">
          <h1 id="hook-title">{h.name}</h1>
          <dl className="facts">
            <dt>URL</dt>
            <dd className="url">{h.url}</dd>
            <dt>Event kind</dt>
            <dd>{h.on}</dd>
            <dt>Status</dt>
            <dd>
              <span className={`badge ${h.status}`}>{h.status}</span>
            </dd>
            <dt>Succeeded / failed</dt>
            <dd>
              {h.successCount} / {h.errorCount}
            </dd>
          </dl>
          <div className="actions">
            {h.status === "active" ? (
              <button type="button" onClick={() => status.mutate("paused")}>
                Pause
              </button>
            ) : (
              <button type="button" onClick={() => status.mutate("active")}>
                Resume
              </button>
            )}
            <button type="button" onClick={() => rotate.mutate()}>
              Rotate secret
            </button>
            <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
              {test.isPending ? "Sending test…" : "Send test"}
            </button>
          </div>
          <form
            className="inline-form"
            aria-label="Recover missed events"
            onSubmit={(event) => {
              event.preventDefault();
              recover.mutate(new Date(String(new FormData(event.currentTarget).get("since"))).toISOString());
            }}
          >
            <label>
              Redeliver what failed since
              <input name="since" type="datetime-local" required />
            </label>
            <button type="submit" disabled={recover.isPending}>
              Recover
            </button>
          </form>
          {recover.data && (
            <p className="notice" role="status">
              {recover.data.queued} events queued for redelivery{recover.data.truncated ? "; more remain in the window" : ""}.
            </p>
          )}
          {failure && <ErrorState error={failure} />}
          {secret && <SecretOnce label="New signing secret" value={secret} />}
          {test.data && (
            <p className="notice" role="status">
              Test delivery: {test.data.outcome}, status {test.data.statusCode ?? "none"}, {test.data.durationMs} ms
              {test.data.error ? ` (${test.data.error})` : ""}
            </p>
          )}
          <h2>Executions</h2>
          <QueryView query={executions} what="executions">
            {(list) =>
              list.length === 0 ? (
                <Empty>No deliveries yet.</Empty>
              ) : (
                <ul className="executions">
                  {list.map((e) => (
                    <li key={e.id}>
                      <details>
                        <summary>
                          <span className={`badge ${e.outcome}`}>{e.outcome}</span> {e.eventKind} · status {e.statusCode ?? "none"} · {e.durationMs} ms ·
                          attempt {e.attempt} · {e.trigger} · {when(e.requestedAt)}
                        </summary>
                        {e.error && <p>Error: {e.error}</p>}
                        <h3>Response headers</h3>
                        <pre>{JSON.stringify(e.responseHeaders ?? {}, null, 2)}</pre>
                        <h3>Response body</h3>
                        <pre>{e.responseBody ?? "(none)"}</pre>
                        <button type="button" onClick={() => retry.mutate(e.id)}>
                          Retry this delivery
                        </button>
                      </details>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        </section>
      )}
    </QueryView>
  );
}
