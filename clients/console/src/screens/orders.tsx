// Orders: filter by status, page through with the API's cursors.
import { Table } from "../components/table.js";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { when } from "../components/format.js";
import { Empty, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

export const ORDER_STATUSES = ["pending", "ready", "inProgress", "completed", "cancelled"] as const;
type Status = (typeof ORDER_STATUSES)[number];

export default function Orders() {
  const api = useApi();
  const [status, setStatus] = useState<Status | "">("");
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useQuery({
    queryKey: ["orders", status, cursor],
    queryFn: async () => (await api.GET("/orders", { params: { query: { limit: 20, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) } } })).data!,
    refetchInterval: 5_000,
  });
  return (
    <section aria-labelledby="orders-title">
      <h1 id="orders-title">Orders</h1>
      <label className="filter">
        Status
        <select
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as Status | "");
            setCursors([]);
          }}
        >
          <option value="">all</option>
          {ORDER_STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <QueryView query={page} what="orders">
        {({ data, nextCursor }) => (
          <>
            {data.length === 0 ? (
              <Empty>No orders{status ? ` with status ${status}` : ""}.</Empty>
            ) : (
              <Table
                rows={data}
                rowKey={(o) => o.id}
                columns={[
                  { header: "Order", cell: (o) => <Link to={`/orders/${o.id}`}>{o.shortId}</Link> },
                  {
                    header: "Status",
                    cell: (o) => (
                      <span className={`badge ${o.status}`} data-testid={`status-${o.shortId}`}>
                        {o.status}
                      </span>
                    ),
                  },
                  { header: "Total", cell: (o) => `${o.total} ${o.currency}` },
                  { header: "Created", cell: (o) => when(o.createdAt) },
                ]}
              />
            )}
            <div className="pager">
              <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer
              </button>
              <button type="button" disabled={!nextCursor} onClick={() => nextCursor && setCursors([...cursors, nextCursor])}>
                Older
              </button>
            </div>
          </>
        )}
      </QueryView>
    </section>
  );
}
