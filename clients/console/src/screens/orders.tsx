// Orders: filter by status and customer (the API's filters, kept in the URL), search by shortId,
// "Load more" over the cursors, live as orders change.
import { useQueryClient } from "@tanstack/react-query";
import type { Order } from "@waybill/sdk";
import { Link, useSearchParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { ago, money } from "../components/format.js";
import { ShoppingCart } from "../components/icons.js";
import { LoadMore } from "../components/load-more.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill, statusLabel } from "../components/status.js";
import { Empty, QueryView } from "../components/states.js";
import { useLiveEvents } from "../data/live.js";
import { useCustomers, usePaged } from "../data/queries.js";
import { useApi } from "../session.js";

export const ORDER_STATUSES = ["pending", "ready", "inProgress", "completed", "cancelled"] as const;
type Status = (typeof ORDER_STATUSES)[number];

export default function Orders() {
  const api = useApi();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const status = (params.get("status") ?? "") as Status | "";
  const customerId = params.get("customerId") ?? "";
  const q = params.get("q") ?? "";
  const customers = useCustomers();
  const list = usePaged(
    ["orders", status, customerId],
    async (cursor) =>
      (
        await api.GET("/orders", {
          params: { query: { limit: 50, ...(status ? { status } : {}), ...(customerId ? { customerId } : {}), ...(cursor ? { cursor } : {}) } },
        })
      ).data!,
  );
  useLiveEvents(["order.created", "order.status.changed", "order.updated"], () => void client.invalidateQueries({ queryKey: ["orders"] }));
  const set = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };
  const rows = (list.rows ?? []).filter((o) => !q || o.shortId.toLowerCase().includes(q.toLowerCase()));
  return (
    <section aria-labelledby="orders-title">
      <PageHeader
        titleId="orders-title"
        title="Orders"
        description="Every order of the tenant, newest first. Orders are created through the API or the CLI."
        actions={
          <Link className="button" to="/warehouse">
            Find a shipment
          </Link>
        }
      />
      <search className="toolbar" aria-label="Filter orders">
        <label className="search-field">
          Search by shortId
          <input type="search" value={q} onChange={(e) => set("q", e.target.value)} placeholder="ORD-1001" autoCapitalize="none" />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => set("status", e.target.value)}>
            <option value="">All statuses</option>
            {ORDER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Customer
          <select value={customerId} onChange={(e) => set("customerId", e.target.value)}>
            <option value="">All customers</option>
            {[...(customers.data?.values() ?? [])].map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      </search>
      <QueryView query={{ ...list.query, data: list.rows }} what="orders">
        {() =>
          rows.length === 0 ? (
            <Empty
              icon={ShoppingCart}
              title={q || status || customerId ? "No orders match these filters." : "No orders yet."}
              cli="waybill orders create -f order.json"
            >
              {q || status || customerId ? "Clear a filter or load more." : "Create the first order through the API or the CLI; it shows here at once."}
            </Empty>
          ) : (
            <DataList<Order>
              label="Orders"
              rows={rows}
              rowKey={(o) => o.id}
              columns={[
                { header: "Order", card: "title", cell: (o) => <Link to={`/orders/${o.id}`}>{o.shortId}</Link> },
                { header: "Status", card: "status", cell: (o) => <StatusPill status={o.status} testId={`status-${o.shortId}`} /> },
                { header: "Customer", cell: (o) => customers.data?.get(o.customerId)?.name ?? <span className="id">{o.customerId}</span> },
                { header: "Lines", numeric: true, cell: (o) => o.orderItems.length },
                { header: "Total", numeric: true, cell: (o) => <span className="nowrap">{money(o.total, o.currency)}</span> },
                { header: "Created", cell: (o) => <span className="nowrap">{ago(o.createdAt)}</span> },
              ]}
            />
          )
        }
      </QueryView>
      {list.rows && <LoadMore hasMore={list.hasMore} loading={list.loadingMore} onMore={list.more} shown={rows.length} />}
    </section>
  );
}
