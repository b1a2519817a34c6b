// Users of the tenant (admins only; the API refuses members too).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { DataList } from "../components/data-list.js";
import { when } from "../components/format.js";
import { Plus, Users as UsersIcon } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi, useSignedIn } from "../session.js";

export default function Users() {
  const api = useApi();
  const session = useSignedIn();
  const client = useQueryClient();
  const [adding, setAdding] = useState(false);
  const users = useQuery({
    queryKey: ["users"],
    queryFn: async () => (await api.GET("/users", { params: { query: { limit: 100 } } })).data!.data,
    enabled: session.role === "admin",
  });
  const create = useMutation({
    mutationFn: async (body: { email: string; password: string; role: "admin" | "member" }) => api.POST("/users", { body }),
    onSuccess: () => {
      setAdding(false);
      void client.invalidateQueries({ queryKey: ["users"] });
    },
  });
  if (session.role !== "admin") return <Empty icon={UsersIcon} title="Only admins manage users." />;
  return (
    <section aria-labelledby="users-title">
      <PageHeader
        titleId="users-title"
        title="Users"
        description="People who sign in to this console. Admins also manage users and tokens."
        actions={
          <button type="button" className="primary" onClick={() => setAdding(!adding)} aria-expanded={adding}>
            <Plus size={18} aria-hidden="true" />
            Add user
          </button>
        }
      />
      {adding && (
        <form
          className="panel form-grid"
          aria-label="Add a user"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            create.mutate({ email: String(form.get("email")), password: String(form.get("password")), role: form.get("role") as "admin" | "member" });
          }}
        >
          <label>
            User email
            <input name="email" type="email" required />
          </label>
          <label>
            Initial password
            <input name="password" type="password" minLength={8} required autoComplete="new-password" />
          </label>
          <label>
            Role
            <select name="role" defaultValue="member">
              <option>member</option>
              <option>admin</option>
            </select>
          </label>
          <button type="submit" className="primary">
            Add user
          </button>
        </form>
      )}
      {create.error && <ErrorState error={create.error} />}
      <QueryView query={users} what="users">
        {(list) => (
          <DataList
            label="Users"
            rows={list}
            rowKey={(u) => u.id}
            columns={[
              { header: "Email", card: "title", cell: (u) => u.email },
              { header: "Role", cell: (u) => u.role },
              { header: "Since", cell: (u) => when(u.createdAt) },
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}
