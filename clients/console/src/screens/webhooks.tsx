// Webhooks: the list with counts and last run, and `New webhook` (the signing secret shown once).
import { Table } from "../components/table.js";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { when } from "../components/format.js";
import type { EventKind } from "../components/types.js";
import { SecretOnce } from "../components/secret-once.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

export default function Webhooks() {
  const api = useApi();
  const client = useQueryClient();
  const hooks = useQuery({ queryKey: ["hooks"], queryFn: async () => (await api.GET("/hooks", { params: { query: { limit: 100 } } })).data!.data });
  const kinds = useQuery({ queryKey: ["event-kinds"], queryFn: async () => (await api.GET("/event-kinds")).data!.data.map((k) => k.kind) });
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
      <h1 id="hooks-title">Webhooks</h1>
      <button type="button" onClick={() => setAdding(!adding)} aria-expanded={adding}>
        New webhook
      </button>
      {adding && (
        <form
          className="inline-form"
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
              {(kinds.data ?? []).map((k) => (
                <option key={k}>{k}</option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={create.isPending}>
            Create webhook
          </button>
          {create.error && <ErrorState error={create.error} />}
        </form>
      )}
      {created && <SecretOnce label={`Signing secret of ${created.name}`} value={created.secret} />}
      <QueryView query={hooks} what="webhooks">
        {(list) =>
          list.length === 0 ? (
            <Empty>No webhooks yet: create one to receive signed events.</Empty>
          ) : (
            <Table
              rows={list}
              rowKey={(h) => h.id}
              columns={[
                { header: "Name", cell: (h) => <Link to={`/webhooks/${h.id}`}>{h.name}</Link> },
                { header: "URL", cell: (h) => <span className="url">{h.url}</span> },
                { header: "Kind", cell: (h) => h.on },
                { header: "Status", cell: (h) => <span className={`badge ${h.status}`}>{h.status}</span> },
                { header: "Succeeded", cell: (h) => h.successCount },
                { header: "Failed", cell: (h) => h.errorCount },
                { header: "Last run", cell: (h) => when(h.lastRunAt) },
              ]}
            />
          )
        }
      </QueryView>
    </section>
  );
}
