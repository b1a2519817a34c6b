// Webhooks: the list with their state, counts and last run, filtered by status, and `New webhook`
// (the signing secret shown once).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Hook } from "@waybill/sdk";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { ago } from "../components/format.js";
import { Plus, Webhook } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { SecretOnce } from "../components/secret-once.js";
import { StatusPill } from "../components/status.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import type { EventKind } from "../components/types.js";
import { subscribableKinds, useEventKinds } from "../data/kinds.js";
import { readAll } from "../data/queries.js";
import { useApi } from "../session.js";

/** A hook's state as the console shows it: disabled by the system, paused or active. */
export function hookState(hook: Hook): string {
  return hook.disabledReason ? "disabled" : hook.status;
}

export default function Webhooks() {
  const api = useApi();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const status = params.get("status") ?? "";
  const hooks = useQuery({
    queryKey: ["hooks"],
    queryFn: () => readAll<Hook>(async (cursor) => (await api.GET("/hooks", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!),
  });
  const kinds = useEventKinds();
  // The outcome of each hook's latest attempt, so a failing hook shows as such in the list.
  const latest = useQuery({
    queryKey: ["hooks", "latest-outcome", hooks.data?.map((h) => h.id).join(",")],
    enabled: Boolean(hooks.data),
    queryFn: async () =>
      new Map(
        await Promise.all(
          (hooks.data ?? []).map(
            async (h) =>
              [h.id, (await api.GET("/hooks/{id}/executions", { params: { path: { id: h.id }, query: { limit: 1 } } })).data!.data[0]?.outcome] as const,
          ),
        ),
      ),
  });
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const create = useMutation({
    mutationFn: async (body: { name: string; url: string; on: EventKind }) => (await api.POST("/hooks", { body })).data!,
    onSuccess: (hook) => {
      setCreated({ name: hook.name, secret: hook.secret });
      setAdding(false);
      void client.invalidateQueries({ queryKey: ["hooks"] });
    },
  });
  return (
    <section aria-labelledby="hooks-title">
      <PageHeader
        titleId="hooks-title"
        title="Webhooks"
        description="Signed deliveries of events to your endpoints, with every attempt recorded."
        actions={
          <button type="button" className="primary" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            <Plus size={18} aria-hidden="true" />
            New webhook
          </button>
        }
      />
      {adding && (
        <form
          className="panel form-grid"
          aria-label="New webhook"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            create.mutate({ name: String(form.get("name")), url: String(form.get("url")), on: String(form.get("on")) as EventKind });
          }}
        >
          <label>
            Name
            <input name="name" required maxLength={200} />
          </label>
          <label>
            URL
            <input name="url" type="url" required placeholder="https://example.com/hooks" />
          </label>
          <label>
            Event kind
            <select name="on" required>
              {subscribableKinds(kinds.data ?? []).map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create webhook
          </button>
          {create.error && <ErrorState error={create.error} />}
        </form>
      )}
      {created && <SecretOnce label={`Signing secret of ${created.name}`} value={created.secret} />}
      <search className="toolbar" aria-label="Filter webhooks">
        <label>
          Status
          <select
            value={status}
            onChange={(e) => {
              const next = new URLSearchParams(params);
              if (e.target.value) next.set("status", e.target.value);
              else next.delete("status");
              setParams(next, { replace: true });
            }}
          >
            <option value="">All</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
            <option value="failing">Failing</option>
            <option value="disabled">Auto-disabled</option>
          </select>
        </label>
      </search>
      <QueryView query={hooks} what="webhooks">
        {(all) => {
          const list = all.filter((h) => !status || (status === "failing" ? latest.data?.get(h.id) === "failed" : hookState(h) === status));
          return list.length === 0 ? (
            <Empty
              icon={Webhook}
              title={status ? "No webhooks with this status." : "No webhooks yet."}
              cli='waybill hooks create --name "Orders" --url https://example.com/hooks --on order.created'
            >
              {status ? "Choose another status." : "Create one with New webhook to receive signed events at your endpoint."}
            </Empty>
          ) : (
            <DataList<Hook>
              label="Webhooks"
              rows={list}
              rowKey={(h) => h.id}
              columns={[
                { header: "Name", card: "title", cell: (h) => <Link to={`/webhooks/${h.id}`}>{h.name}</Link> },
                {
                  header: "Status",
                  card: "status",
                  cell: (h) => (
                    <StatusPill
                      status={latest.data?.get(h.id) === "failed" && hookState(h) === "active" ? "failing" : hookState(h)}
                      testId={`hook-${h.name}`}
                    />
                  ),
                },
                { header: "Kind", cell: (h) => <code>{h.on}</code> },
                { header: "URL", cell: (h) => <span className="wrap-anywhere">{h.url}</span> },
                {
                  header: "Attempts",
                  cell: (h) => (
                    <span className="nowrap">
                      {h.successCount} ok · {h.errorCount} failed
                    </span>
                  ),
                },
                { header: "Last run", cell: (h) => <span className="nowrap">{ago(h.lastRunAt)}</span> },
              ]}
            />
          );
        }}
      </QueryView>
    </section>
  );
}
