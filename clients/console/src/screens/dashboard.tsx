// Dashboard: orders by status (each a link to the filtered list), deliveries of the last 24 h,
// hooks that fail or were disabled, devices connected, and stock that is low or gone; all of it
// refreshed live from the event stream.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Execution, Hook } from "@waybill/sdk";
import { useRef } from "react";
import { Link } from "react-router";
import { DeliveriesChart, hourlyOutcomes } from "../components/deliveries-chart.js";
import { Activity, Boxes, ChevronRight, Radio, ShoppingCart, Webhook } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill, statusLabel } from "../components/status.js";
import { QueryView } from "../components/states.js";
import { useLiveEvents } from "../data/live.js";
import { useDevices, useProducts, useStock } from "../data/queries.js";
import { useApi } from "../session.js";
import { lowStock } from "./inventory-stock.js";
import { ORDER_STATUSES } from "./orders.js";

export interface HookHealth {
  hook: Hook;
  lastOutcome: string | undefined;
}

/** Hooks that need a look: disabled by the system, paused, or whose last attempt failed. */
export function attentionOf(health: HookHealth[]): { hook: Hook; status: string }[] {
  return health
    .map(({ hook, lastOutcome }) => ({
      hook,
      status: hook.disabledReason ? "disabled" : hook.status === "paused" ? "paused" : lastOutcome === "failed" ? "failing" : "",
    }))
    .filter((h) => h.status !== "");
}

export default function Dashboard() {
  const api = useApi();
  const client = useQueryClient();
  const orders = useQuery({
    queryKey: ["dashboard", "orders"],
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
  const hooks = useQuery({
    queryKey: ["dashboard", "hooks"],
    queryFn: async () => {
      const list = (await api.GET("/hooks", { params: { query: { limit: 100 } } })).data!.data;
      const executions = await Promise.all(
        list.map(async (h) => (await api.GET("/hooks/{id}/executions", { params: { path: { id: h.id }, query: { limit: 100 } } })).data!.data as Execution[]),
      );
      return {
        series: hourlyOutcomes(executions.flat(), Date.now()),
        health: list.map((hook, i) => ({ hook, lastOutcome: executions[i][0]?.outcome })),
      };
    },
  });
  const devices = useDevices();
  const products = useProducts();
  const stock = useStock();
  // Live: any event may move a count; refresh at most once a second.
  const pending = useRef<ReturnType<typeof setTimeout>>(undefined);
  const live = useLiveEvents([], (event) => {
    clearTimeout(pending.current);
    pending.current = setTimeout(() => {
      const area = event.kind.split(".")[0];
      if (area === "order" || area === "inventory" || area === "shipment") void client.invalidateQueries({ queryKey: ["dashboard", "orders"] });
      if (area === "inventory" || area === "product") void client.invalidateQueries({ queryKey: ["stock"] });
      if (area === "device") void client.invalidateQueries({ queryKey: ["devices"] });
      void client.invalidateQueries({ queryKey: ["dashboard", "hooks"] });
    }, 1000);
  });
  return (
    <section aria-labelledby="dashboard-title">
      <PageHeader
        titleId="dashboard-title"
        title="Dashboard"
        description={live ? "Live: figures update as events happen." : "Connecting to the live event stream…"}
        actions={
          <Link className="button primary" to="/events">
            <Activity size={18} aria-hidden="true" />
            Live events
          </Link>
        }
      />
      <div className="tiles">
        <article className="panel tile tall" aria-labelledby="tile-orders">
          <h2 id="tile-orders">
            <ShoppingCart size={18} aria-hidden="true" />
            Orders by status
          </h2>
          <QueryView query={orders} what="orders">
            {(counts) => (
              <ul className="link-list">
                {ORDER_STATUSES.map((s) => (
                  <li key={s}>
                    <Link to={`/orders?status=${s}`} aria-label={`${statusLabel(s)}: ${counts[s]} orders`}>
                      <StatusPill status={s} />
                    </Link>
                    <strong data-testid={`count-${s}`}>{counts[s]}</strong>
                  </li>
                ))}
              </ul>
            )}
          </QueryView>
        </article>
        <article className="panel tile" aria-labelledby="tile-stock">
          <h2 id="tile-stock">
            <Boxes size={18} aria-hidden="true" />
            Low stock
          </h2>
          <QueryView
            query={products.data && stock.data ? { ...stock, data: lowStock([...products.data.values()], stock.data) } : { ...stock, data: undefined }}
            what="stock"
          >
            {(list) =>
              list.length === 0 ? (
                <p className="muted">Every product is above its threshold.</p>
              ) : (
                <ul className="link-list" data-testid="low-stock">
                  {list.map(({ product, available, status }) => (
                    <li key={product.id}>
                      <Link to={`/products/${product.id}`}>
                        {product.sku} · {product.name}
                      </Link>
                      <span className="row nowrap">
                        {available} available <StatusPill status={status} />
                      </span>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        </article>
        <article className="panel tile" aria-labelledby="tile-devices">
          <h2 id="tile-devices">
            <Radio size={18} aria-hidden="true" />
            Devices connected
          </h2>
          <QueryView query={devices} what="devices">
            {(list) => (
              <Link to="/devices" className="row plain" aria-label={`${list.filter((d) => d.connected).length} of ${list.length} devices connected`}>
                <span className="big">
                  {list.filter((d) => d.connected).length} <span className="muted">of {list.length}</span>
                </span>
                <ChevronRight size={20} aria-hidden="true" />
              </Link>
            )}
          </QueryView>
        </article>
      </div>
      <div className="grid-2">
        <article className="panel chart-panel" aria-labelledby="tile-deliveries">
          <h2 id="tile-deliveries">Deliveries, last 24 hours</h2>
          <QueryView query={hooks} what="deliveries">
            {({ series }) => <DeliveriesChart series={series} />}
          </QueryView>
        </article>
        <article className="panel" aria-labelledby="tile-hooks">
          <h2 id="tile-hooks" className="row">
            <Webhook size={18} aria-hidden="true" />
            Webhooks needing attention
          </h2>
          <QueryView query={hooks} what="webhooks">
            {({ health }) => {
              const attention = attentionOf(health);
              return attention.length === 0 ? (
                <p className="muted">Every webhook delivers.</p>
              ) : (
                <ul className="link-list" data-testid="hooks-attention">
                  {attention.map(({ hook, status }) => (
                    <li key={hook.id}>
                      <Link to={`/webhooks/${hook.id}`}>{hook.name}</Link>
                      <StatusPill status={status} />
                    </li>
                  ))}
                </ul>
              );
            }}
          </QueryView>
        </article>
      </div>
    </section>
  );
}
