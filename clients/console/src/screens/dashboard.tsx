// Dashboard: orders by status, deliveries succeeded and failed over the last 24 h (a chart),
// devices connected, and products low on stock.
import { useQuery } from "@tanstack/react-query";
import { DeliveriesChart, hourlyOutcomes } from "../components/deliveries-chart.js";
import { QueryView } from "../components/states.js";
import { useApi } from "../session.js";
import { isLow } from "./inventory.js";
import { ORDER_STATUSES } from "./orders.js";

export default function Dashboard() {
  const api = useApi();
  const orders = useQuery({
    queryKey: ["dashboard-orders"],
    queryFn: async () => {
      const counts: Record<string, string> = {};
      await Promise.all(
        ORDER_STATUSES.map(async (status) => {
          const page = (await api.GET("/orders", { params: { query: { status, limit: 100 } } })).data!;
          counts[status] = page.nextCursor ? "100+" : String(page.data.length);
        }),
      );
      return counts;
    },
  });
  const deliveries = useQuery({
    queryKey: ["dashboard-deliveries"],
    queryFn: async () => {
      const hooks = (await api.GET("/hooks", { params: { query: { limit: 100 } } })).data!.data;
      const executions = await Promise.all(
        hooks.map(async (h) => (await api.GET("/hooks/{id}/executions", { params: { path: { id: h.id }, query: { limit: 100 } } })).data!.data),
      );
      return hourlyOutcomes(executions.flat(), Date.now());
    },
  });
  const devices = useQuery({ queryKey: ["devices"], queryFn: async () => (await api.GET("/devices")).data!.data });
  const low = useQuery({
    queryKey: ["dashboard-low"],
    queryFn: async () => {
      const [products, stock] = await Promise.all([
        api.GET("/products", { params: { query: { limit: 100 } } }),
        api.GET("/inventory", { params: { query: {} } }),
      ]);
      return products.data!.data.filter((p) => isLow(p, stock.data!.data));
    },
  });
  return (
    <section aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Dashboard</h1>
      <div className="tiles">
        <article aria-labelledby="tile-orders">
          <h2 id="tile-orders">Orders by status</h2>
          <QueryView query={orders} what="orders">
            {(counts) => (
              <dl className="facts">
                {ORDER_STATUSES.map((s) => (
                  <div key={s}>
                    <dt>{s}</dt>
                    <dd>{counts[s]}</dd>
                  </div>
                ))}
              </dl>
            )}
          </QueryView>
        </article>
        <article aria-labelledby="tile-devices">
          <h2 id="tile-devices">Devices connected</h2>
          <QueryView query={devices} what="devices">
            {(list) => (
              <p className="big">
                {list.filter((d) => d.connected).length} of {list.length}
              </p>
            )}
          </QueryView>
        </article>
        <article aria-labelledby="tile-low">
          <h2 id="tile-low">Low stock</h2>
          <QueryView query={low} what="stock">
            {(list) =>
              list.length === 0 ? (
                <p>Nothing is low.</p>
              ) : (
                <ul>
                  {list.map((p) => (
                    <li key={p.id}>
                      {p.sku} {p.name}
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        </article>
      </div>
      <article aria-labelledby="tile-deliveries">
        <h2 id="tile-deliveries">Deliveries, last 24 hours</h2>
        <QueryView query={deliveries} what="deliveries">
          {(series) => <DeliveriesChart series={series} />}
        </QueryView>
      </article>
    </section>
  );
}
