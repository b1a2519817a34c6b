// One order: lines and total, the status changes it allows as buttons (a refusal shows the API's
// detail), its timeline and the events of its operations, and its shipments.
import { Table } from "../components/table.js";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useParams } from "react-router";
import { when } from "../components/format.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

const NEXT: Record<string, ("ready" | "inProgress" | "completed" | "cancelled")[]> = {
  pending: ["ready", "cancelled"],
  ready: ["inProgress", "cancelled"],
  inProgress: ["completed", "cancelled"],
  completed: [],
  cancelled: [],
};

interface LoggedEvent {
  id: string;
  kind: string;
  time: string;
  transactionId: string;
  orderId?: string;
  currentOrderStatus?: string;
}

export default function Order() {
  const { id = "" } = useParams();
  const api = useApi();
  const client = useQueryClient();
  const order = useQuery({
    queryKey: ["order", id],
    queryFn: async () => (await api.GET("/orders/{id}", { params: { path: { id } } })).data!,
    refetchInterval: 5_000,
  });
  const shipments = useQuery({
    queryKey: ["shipments", id],
    queryFn: async () => (await api.GET("/shipments", { params: { query: { orderId: id } } })).data!.data,
  });
  const events = useQuery({
    queryKey: ["order-events", id],
    queryFn: async () => {
      const recent = (await api.GET("/events", { params: { query: { limit: 100 } } })).data!.data as LoggedEvent[];
      const own = recent.filter((e) => e.orderId === id);
      const operations = new Set(own.map((e) => e.transactionId));
      return recent.filter((e) => e.orderId === id || operations.has(e.transactionId)).reverse();
    },
    refetchInterval: 5_000,
  });
  const change = useMutation({
    mutationFn: async (status: "ready" | "inProgress" | "completed" | "cancelled") =>
      (await api.POST("/orders/{id}/status", { params: { path: { id } }, body: { status } })).data!,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["order", id] });
      void client.invalidateQueries({ queryKey: ["order-events", id] });
    },
  });
  return (
    <QueryView query={order} what="the order">
      {(o) => (
        <section aria-labelledby="order-title">
          <h1 id="order-title">Order {o.shortId}</h1>
          <p>
            Status <span className={`badge ${o.status}`}>{o.status}</span> · total {o.total} {o.currency} · created {when(o.createdAt)}
          </p>
          <fieldset className="actions">
            <legend className="muted">Status changes</legend>
            {NEXT[o.status].length === 0 && <p className="muted">No further status changes: the order is {o.status}.</p>}
            {NEXT[o.status].map((s) => (
              <button key={s} type="button" onClick={() => change.mutate(s)} disabled={change.isPending}>
                Move to {s}
              </button>
            ))}
          </fieldset>
          {change.error && <ErrorState error={change.error} />}
          <h2>Lines</h2>
          <Table
            rows={o.orderItems}
            // Lines have no id of their own: their position is their identity within the order.
            rowKey={(line, i) => `${i}-${line.productId}`}
            columns={[
              { header: "Product", cell: (line) => line.productId },
              { header: "Quantity", cell: (line) => line.quantity },
              { header: "Price", cell: (line) => line.price },
            ]}
          />
          <h2>Timeline and related events</h2>
          <QueryView query={events} what="events">
            {(list) =>
              list.length === 0 ? (
                <Empty>No events recorded yet.</Empty>
              ) : (
                <ol className="timeline">
                  {list.map((e) => (
                    <li key={e.id}>
                      {when(e.time)} · {e.kind}
                      {e.currentOrderStatus ? ` → ${e.currentOrderStatus}` : ""} <span className="muted">{e.transactionId}</span>
                    </li>
                  ))}
                </ol>
              )
            }
          </QueryView>
          <h2>Shipments</h2>
          <QueryView query={shipments} what="shipments">
            {(list) =>
              list.length === 0 ? (
                <Empty>No shipments.</Empty>
              ) : (
                <ul>
                  {list.map((s) => (
                    <li key={s.id}>
                      {s.carrier} {s.trackingNumber}: <span className={`badge ${s.status}`}>{s.status}</span>
                      <ol className="timeline">
                        {(s.timeline ?? []).map((step) => (
                          <li key={`${step.status}-${step.at}`}>
                            {when(step.at)} · {step.status}
                            {step.location ? ` at ${step.location}` : ""}
                          </li>
                        ))}
                      </ol>
                    </li>
                  ))}
                </ul>
              )
            }
          </QueryView>
        </section>
      )}
    </QueryView>
  );
}
