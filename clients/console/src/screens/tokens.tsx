// API tokens: create (value shown once), list with last use, revoke with confirmation.
import { Table } from "../components/table.js";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Confirm } from "../components/confirm.js";
import { when } from "../components/format.js";
import { SecretOnce } from "../components/secret-once.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

const TYPES = ["api", "cli", "machine", "sensor"] as const;

export default function Tokens() {
  const api = useApi();
  const client = useQueryClient();
  const tokens = useQuery({ queryKey: ["tokens"], queryFn: async () => (await api.GET("/tokens", { params: { query: { limit: 100 } } })).data!.data });
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const create = useMutation({
    mutationFn: async (body: { name: string; type: (typeof TYPES)[number]; expiresAt?: string }) => (await api.POST("/tokens", { body })).data!,
    onSuccess: (token) => {
      setCreated({ name: token.name, token: token.token ?? "" });
      void client.invalidateQueries({ queryKey: ["tokens"] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => api.DELETE("/tokens/{id}", { params: { path: { id } } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["tokens"] }),
  });
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <form
        className="inline-form"
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
          <select name="type" defaultValue="api">
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Expires (optional)
          <input name="expiresAt" type="datetime-local" />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {create.error && <ErrorState error={create.error} />}
      {created && <SecretOnce label={`Token ${created.name}`} value={created.token} />}
      {revoke.error && <ErrorState error={revoke.error} />}
      <QueryView query={tokens} what="tokens">
        {(list) =>
          list.length === 0 ? (
            <Empty>No tokens yet.</Empty>
          ) : (
            <Table
              rows={list}
              rowKey={(t) => t.id}
              columns={[
                { header: "Name", cell: (t) => t.name },
                { header: "Type", cell: (t) => t.type },
                { header: "Created", cell: (t) => when(t.createdAt) },
                { header: "Expires", cell: (t) => when(t.expiresAt) },
                { header: "Last used", cell: (t) => (t.lastUsedAt ? when(t.lastUsedAt) : "never") },
                {
                  header: "State",
                  cell: (t) =>
                    t.revokedAt ? (
                      `revoked ${when(t.revokedAt)}`
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
          )
        }
      </QueryView>
    </section>
  );
}
