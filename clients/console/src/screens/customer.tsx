// One customer: contact details and their orders.
import { useQuery } from "@tanstack/react-query";
import type { Order } from "@waybill/sdk";
import { Link, useParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { ago, money } from "../components/format.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill } from "../components/status.js";
import { QueryView } from "../components/states.js";
import { readAll } from "../data/queries.js";
import { useApi } from "../session.js";

export default function CustomerDetail() {
  const { id = "" } = useParams();
  const api = useApi();
  const customer = useQuery({ queryKey: ["customer", id], queryFn: async () => (await api.GET("/customers/{id}", { params: { path: { id } } })).data! });
  const orders = useQuery({
    queryKey: ["orders", "customer", id],
    queryFn: () =>
      readAll<Order>(
        async (cursor) => (await api.GET("/orders", { params: { query: { customerId: id, limit: 100, ...(cursor ? { cursor } : {}) } } })).data!,
        300,
      ),
  });
  return (
    <QueryView query={customer} what="the customer">
      {(c) => (
        <section aria-labelledby="customer-title">
          <PageHeader
            titleId="customer-title"
            back={{ to: "/customers", label: "Customers" }}
            title={c.name}
            description={[c.email, c.phone].filter(Boolean).join(" · ") || "No contact details"}
            actions={
              <Link className="button" to={`/orders?customerId=${c.id}`}>
                Orders of {c.name}
              </Link>
            }
          />
          <article className="panel" aria-labelledby="customer-orders">
            <h2 id="customer-orders">Orders</h2>
            <QueryView query={orders} what="orders">
              {(list) =>
                list.length === 0 ? (
                  <p className="muted">No orders yet.</p>
                ) : (
                  <DataList<Order>
                    label="Orders of the customer"
                    rows={list}
                    rowKey={(o) => o.id}
                    columns={[
                      { header: "Order", card: "title", cell: (o) => <Link to={`/orders/${o.id}`}>{o.shortId}</Link> },
                      { header: "Status", card: "status", cell: (o) => <StatusPill status={o.status} /> },
                      { header: "Total", numeric: true, cell: (o) => money(o.total, o.currency) },
                      { header: "Created", cell: (o) => ago(o.createdAt) },
                    ]}
                  />
                )
              }
            </QueryView>
          </article>
          {c.address && (
            <article className="panel">
              <h2>Address</h2>
              <p>{[c.address.line1, c.address.line2, c.address.postalCode, c.address.city, c.address.region, c.address.country].filter(Boolean).join(", ")}</p>
            </article>
          )}
        </section>
      )}
    </QueryView>
  );
}
