// One product: its stock per location and its recent stock events.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { DataList } from "../components/data-list.js";
import { money, when } from "../components/format.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill } from "../components/status.js";
import { QueryView } from "../components/states.js";
import { eventsPage, readAll, useStock } from "../data/queries.js";
import { useApi } from "../session.js";
import { stockOf } from "./inventory-stock.js";

export default function ProductDetail() {
  const { id = "" } = useParams();
  const api = useApi();
  const product = useQuery({ queryKey: ["product", id], queryFn: async () => (await api.GET("/products/{id}", { params: { path: { id } } })).data! });
  const stock = useStock();
  const events = useQuery({
    queryKey: ["product-events", id],
    queryFn: async () => (await readAll(eventsPage(api), 300)).filter((e) => e.productId === id).slice(0, 20),
  });
  return (
    <QueryView query={product} what="the product">
      {(p) => {
        const state = stockOf(p, stock.data ?? []);
        const levels = (stock.data ?? []).filter((s) => s.productId === p.id);
        return (
          <section aria-labelledby="product-title">
            <PageHeader
              titleId="product-title"
              back={{ to: "/inventory", label: "Inventory" }}
              title={`${p.sku} · ${p.name}`}
              status={state.status === "ok" ? undefined : <StatusPill status={state.status} />}
              description={`${state.available} available · ${state.onHand} on hand · ${state.reserved} reserved · price ${money(p.price, p.currency)}`}
            />
            <article className="panel" aria-labelledby="product-stock">
              <h2 id="product-stock">Stock per location</h2>
              {levels.length === 0 ? (
                <p className="muted">No stock recorded.</p>
              ) : (
                <DataList
                  label="Stock per location"
                  rows={levels}
                  rowKey={(s) => s.location}
                  columns={[
                    { header: "Location", card: "title", cell: (s) => s.location },
                    { header: "Available", numeric: true, cell: (s) => s.available },
                    { header: "On hand", numeric: true, cell: (s) => s.onHand },
                    { header: "Reserved", numeric: true, cell: (s) => s.reserved },
                  ]}
                />
              )}
            </article>
            <article className="panel" aria-labelledby="product-events">
              <h2 id="product-events">Recent stock events</h2>
              <QueryView query={events} what="events">
                {(list) =>
                  list.length === 0 ? (
                    <p className="muted">None in the recent log.</p>
                  ) : (
                    <ul className="link-list">
                      {list.map((e) => (
                        <li key={e.id}>
                          <Link to={`/events/${e.id}`}>{e.kind}</Link>
                          <span className="muted nowrap">{when(e.time)}</span>
                        </li>
                      ))}
                    </ul>
                  )
                }
              </QueryView>
            </article>
          </section>
        );
      }}
    </QueryView>
  );
}
