// Users of the tenant (admins only; the API refuses members too).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { when } from "../components/format.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi, useSession } from "../session.js";

export default function Users() {
  const api = useApi();
  const { session } = useSession();
  const client = useQueryClient();
  const users = useQuery({
    queryKey: ["users"],
    queryFn: async () => (await api.GET("/users", { params: { query: { limit: 100 } } })).data!.data,
    enabled: session?.role === "admin",
  });
  const create = useMutation({
    mutationFn: async (body: { email: string; password: string; role: "admin" | "member" }) => api.POST("/users", { body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["users"] }),
  });
  if (session?.role !== "admin") return <p className="state">Only admins manage users.</p>;
  return (
    <section aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      <form
        className="inline-form"
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
        <button type="submit">Add user</button>
      </form>
      {create.error && <ErrorState error={create.error} />}
      <QueryView query={users} what="users">
        {(list) =>
          list.length === 0 ? (
            <Empty>No users.</Empty>
          ) : (
            <ul>
              {list.map((u) => (
                <li key={u.id}>
                  {u.email} · {u.role} · since {when(u.createdAt)}
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}
