// API tokens: create (value shown once), list with type, last use and state, revoke (asked first).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ApiToken } from "@waybill/sdk";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { Confirm } from "../components/dialog.js";
import { ago, when } from "../components/format.js";
import { KeyRound, Plus } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { SecretOnce } from "../components/secret-once.js";
import { StatusPill } from "../components/status.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { readAll } from "../data/queries.js";
import { useApi } from "../session.js";

const TYPES = ["api", "cli", "machine", "sensor"] as const;

function tokenState(t: ApiToken): string {
  if (t.revokedAt) return "revoked";
  if (t.expiresAt && Date.parse(t.expiresAt) < Date.now()) return "expired";
  return "active";
}

export default function Tokens() {
  const api = useApi();
  const client = useQueryClient();
  const [params] = useSearchParams();
  const only = params.get("id");
  const tokens = useQuery({
    queryKey: ["tokens"],
    queryFn: () => readAll<ApiToken>(async (cursor) => (await api.GET("/tokens", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } })).data!),
  });
  const [creating, setCreating] = useState(params.get("type") !== null);
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const create = useMutation({
    mutationFn: async (body: { name: string; type: (typeof TYPES)[number]; expiresAt?: string }) => (await api.POST("/tokens", { body })).data!,
    onSuccess: (token) => {
      setCreated({ name: token.name, token: token.token ?? "" });
      void client.invalidateQueries({ queryKey: ["tokens"] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => api.DELETE("/tokens/{id}", { params: { path: { id } }, parseAs: "text" }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["tokens"] }),
  });
  return (
    <section aria-labelledby="tokens-title">
      <PageHeader
        titleId="tokens-title"
        title="API tokens"
        description="Credentials for integrations, the CLI, machines and sensors. A token's value is shown once, when it is created."
        actions={
          <button type="button" className="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
            <Plus size={18} aria-hidden="true" />
            New token
          </button>
        }
      />
      {creating && (
        <form
          className="panel form-grid"
          aria-label="Create a token"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const expires = String(form.get("expiresAt") ?? "");
            create.mutate({
              name: String(form.get("name")),
              type: form.get("type") as (typeof TYPES)[number],
              ...(expires ? { expiresAt: new Date(expires).toISOString() } : {}),
            });
          }}
        >
          <label>
            Token name
            <input name="name" required maxLength={200} />
          </label>
          <label>
            Type
            <select name="type" defaultValue={params.get("type") ?? "api"}>
              {TYPES.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          </label>
          <label>
            Expires (optional)
            <input name="expiresAt" type="datetime-local" />
          </label>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create token
          </button>
        </form>
      )}
      {create.error && <ErrorState error={create.error} />}
      {created && <SecretOnce label={`Token ${created.name}`} value={created.token} />}
      {revoke.error && <ErrorState error={revoke.error} />}
      <QueryView query={tokens} what="tokens">
        {(all) => {
          const list = all.filter((t) => !only || t.id === only);
          return list.length === 0 ? (
            <Empty icon={KeyRound} title="No tokens yet." cli='waybill tokens create --name "My integration"'>
              Create one with New token.
            </Empty>
          ) : (
            <DataList<ApiToken>
              label="API tokens"
              rows={list}
              rowKey={(t) => t.id}
              columns={[
                { header: "Name", card: "title", cell: (t) => <strong>{t.name}</strong> },
                { header: "State", card: "status", cell: (t) => <StatusPill status={tokenState(t)} /> },
                { header: "Type", cell: (t) => t.type },
                { header: "Last used", cell: (t) => ago(t.lastUsedAt) },
                { header: "Expires", cell: (t) => when(t.expiresAt) },
                {
                  header: "Actions",
                  card: "action",
                  cell: (t) =>
                    t.revokedAt ? (
                      <span className="muted">revoked {when(t.revokedAt)}</span>
                    ) : (
                      <Confirm
                        trigger={`Revoke ${t.name}`}
                        title={`Revoke ${t.name}?`}
                        description="It stops working at once, everywhere (HTTP and MQTT). This cannot be undone."
                        action="Revoke"
                        onConfirm={() => revoke.mutate(t.id)}
                      />
                    ),
                },
              ]}
            />
          );
        }}
      </QueryView>
    </section>
  );
}
