// One order: its customer, lines with SKU and name, totals, the status changes it allows, a status
// timeline in words (with the operation that changed it), and its shipments with their scans.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Order as OrderRecord } from "@waybill/sdk";
import { Link, useParams } from "react-router";
import { CopyButton } from "../components/copy-button.js";
import { DataList } from "../components/data-list.js";
import { Confirm } from "../components/dialog.js";
import { money, when } from "../components/format.js";
import { CircleDot, Truck } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { StatusPill, statusLabel } from "../components/status.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useLiveEvents } from "../data/live.js";
import { eventsPage, type LoggedEvent, readAll, useCustomers, useProducts } from "../data/queries.js";
import { useApi } from "../session.js";

type Next = "ready" | "inProgress" | "completed" | "cancelled";
const NEXT: Record<string, Next[]> = {
  pending: ["ready", "cancelled"],
  ready: ["inProgress", "cancelled"],
  inProgress: ["completed", "cancelled"],
  completed: [],
  cancelled: [],
};
const ACTION: Record<Next, string> = { ready: "Mark ready", inProgress: "Start work (In progress)", completed: "Mark completed", cancelled: "Cancel order" };

/** One step of the status timeline, in words. */
export function timelineStep(event: LoggedEvent, related: LoggedEvent[]): { label: string; cause: string } | undefined {
  const others = related.filter((e) => e.transactionId === event.transactionId && e.id !== event.id);
  const delivered = others.find((e) => e.kind === "shipment.delivered");
  const cause = delivered
    ? `after shipment ${String(delivered.trackingNumber ?? delivered.shipmentId)} was delivered`
    : others.length > 0
      ? `with ${others.length} related events`
      : "";
  switch (event.kind) {
    case "order.created":
      return { label: "Created as Pending", cause };
    case "order.status.changed":
      return { label: `${statusLabel(String(event.previousOrderStatus))} → ${statusLabel(String(event.currentOrderStatus))}`, cause };
    case "order.updated":
      return { label: `Changed ${(event.changedFields as string[] | undefined)?.join(", ") ?? "fields"}`, cause };
    default:
      return undefined;
  }
}

export default function Order() {
  const { id = "" } = useParams();
  const api = useApi();
  const client = useQueryClient();
  const products = useProducts();
  const customers = useCustomers();
  const order = useQuery({ queryKey: ["order", id], queryFn: async () => (await api.GET("/orders/{id}", { params: { path: { id } } })).data! });
  const shipments = useQuery({
    queryKey: ["shipments", id],
    queryFn: async () => (await api.GET("/shipments", { params: { query: { orderId: id, limit: 100 } } })).data!.data,
  });
  const events = useQuery({
    queryKey: ["order-events", id],
    queryFn: async () => {
      const recent = await readAll(eventsPage(api), 500);
      const own = recent.filter((e) => e.orderId === id);
      const operations = new Set(own.map((e) => e.transactionId));
      return { own: own.reverse(), related: recent.filter((e) => operations.has(e.transactionId)) };
    },
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ["order", id] });
    void client.invalidateQueries({ queryKey: ["order-events", id] });
    void client.invalidateQueries({ queryKey: ["shipments", id] });
  };
  useLiveEvents([], (e) => {
    if (e.orderId === id) refresh();
  });
  const change = useMutation({
    mutationFn: async (status: Next) => (await api.POST("/orders/{id}/status", { params: { path: { id } }, body: { status } })).data!,
    onSuccess: (next) => {
      client.setQueryData(["order", id], next);
      void client.invalidateQueries({ queryKey: ["orders"] });
      setTimeout(refresh, 300);
    },
  });
  return (
    <QueryView query={order} what="the order">
      {(o: OrderRecord) => {
        const customer = customers.data?.get(o.customerId);
        return (
          <section aria-labelledby="order-title">
            <PageHeader
              titleId="order-title"
              back={{ to: "/orders", label: "Orders" }}
              title={`Order ${o.shortId}`}
              status={<StatusPill status={o.status} testId="order-status" />}
              description={
                <>
                  {customer ? <Link to={`/customers/${customer.id}`}>{customer.name}</Link> : <span className="id">{o.customerId}</span>} ·{" "}
                  {money(o.total, o.currency)} · created {when(o.createdAt)}
                </>
              }
              actions={NEXT[o.status].map((s) =>
                s === "cancelled" ? (
                  <Confirm
                    key={s}
                    trigger={ACTION[s]}
                    title={`Cancel order ${o.shortId}?`}
                    description="Its reserved stock is released. A cancelled order cannot be reopened."
                    action="Cancel order"
                    onConfirm={() => change.mutate(s)}
                    disabled={change.isPending}
                  />
                ) : (
                  <button key={s} type="button" className="primary" onClick={() => change.mutate(s)} disabled={change.isPending}>
                    {ACTION[s]}
                  </button>
                ),
              )}
            />
            {change.error && <ErrorState error={change.error} />}
            <div className="grid-2">
              <article className="panel" aria-labelledby="order-facts">
                <h2 id="order-facts">Details</h2>
                <dl className="facts">
                  <dt>Customer</dt>
                  <dd data-testid="order-customer">{customer ? <Link to={`/customers/${customer.id}`}>{customer.name}</Link> : o.customerId}</dd>
                  <dt>Status</dt>
                  <dd>{statusLabel(o.status)}</dd>
                  <dt>Total</dt>
                  <dd>{money(o.total, o.currency)}</dd>
                  <dt>Due</dt>
                  <dd>{when(o.dueDate)}</dd>
                  <dt>Updated</dt>
                  <dd>{when(o.updatedAt)}</dd>
                  <dt>Id</dt>
                  <dd className="row">
                    <span className="id">{o.id}</span>
                    <CopyButton value={o.id} label="Copy id" />
                  </dd>
                </dl>
              </article>
              <article className="panel" aria-labelledby="order-timeline">
                <h2 id="order-timeline">Status timeline</h2>
                <QueryView query={events} what="the timeline">
                  {({ own, related }) =>
                    own.length === 0 ? (
                      <p className="muted">No events recorded for this order yet.</p>
                    ) : (
                      <ol className="timeline" data-testid="status-timeline">
                        {own.map((e) => {
                          const step = timelineStep(e, related);
                          if (!step) return null;
                          return (
                            <li key={e.id}>
                              <CircleDot size={18} aria-hidden="true" className="dot" />
                              <div className="what">
                                <strong>{step.label}</strong>
                                <span className="muted">
                                  {when(e.time)} · <Link to={`/events/${e.id}`}>{e.kind}</Link>
                                  {step.cause ? ` · ${step.cause}` : ""} ·{" "}
                                  <Link to={`/events?transactionId=${encodeURIComponent(e.transactionId)}`}>operation</Link>
                                </span>
                              </div>
                            </li>
                          );
                        })}
                      </ol>
                    )
                  }
                </QueryView>
              </article>
            </div>
            <article className="panel" aria-labelledby="order-lines">
              <h2 id="order-lines">Lines</h2>
              <DataList
                label="Order lines"
                rows={o.orderItems}
                // Lines have no id of their own: their position is their identity within the order.
                rowKey={(line, i) => `${i}-${line.productId}`}
                columns={[
                  {
                    header: "Product",
                    card: "title",
                    cell: (line) => {
                      const product = products.data?.get(line.productId);
                      return product ? (
                        <Link to={`/products/${product.id}`}>
                          {product.sku} · {product.name}
                        </Link>
                      ) : (
                        <span className="id">{line.productId}</span>
                      );
                    },
                  },
                  { header: "Quantity", numeric: true, cell: (line) => line.quantity },
                  { header: "Price", numeric: true, cell: (line) => money(line.price, o.currency) },
                  { header: "Line total", numeric: true, cell: (line) => money((Number(line.price) * line.quantity).toFixed(2), o.currency) },
                ]}
              />
            </article>
            <article className="panel" aria-labelledby="order-shipments">
              <h2 id="order-shipments" className="row">
                <Truck size={18} aria-hidden="true" />
                Shipments
              </h2>
              <QueryView query={shipments} what="shipments">
                {(list) =>
                  list.length === 0 ? (
                    <Empty icon={Truck} title="No shipments yet." cli={`waybill shipments create ${o.id} --carrier DHL --tracking-number …`}>
                      A shipment is created through the API or the CLI once the order is in progress.
                    </Empty>
                  ) : (
                    <div className="stack">
                      {list.map((s) => (
                        <section key={s.id} className="stack" aria-label={`Shipment ${s.trackingNumber}`}>
                          <div className="row">
                            <strong>
                              {s.carrier} {s.trackingNumber}
                            </strong>
                            <StatusPill status={s.status} />
                          </div>
                          <ol className="timeline">
                            {(s.timeline ?? []).map((step) => (
                              <li key={`${step.status}-${step.at}`}>
                                <CircleDot size={18} aria-hidden="true" className="dot" />
                                <div className="what">
                                  <strong>{statusLabel(step.status)}</strong>
                                  <span className="muted">
                                    {when(step.at)}
                                    {step.location ? ` · ${step.location}` : ""}
                                    {step.note ? ` · ${step.note}` : ""}
                                  </span>
                                </div>
                              </li>
                            ))}
                          </ol>
                        </section>
                      ))}
                    </div>
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
