// Warehouse, made for a phone on the floor: find an order or shipment by id, shortId or tracking
// number and confirm a delivery; count stock with a product picker.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { PageHeader } from "../components/page-header.js";
import { ProductPicker } from "../components/product-picker.js";
import { StatusPill } from "../components/status.js";
import { ErrorState } from "../components/states.js";
import { useApi } from "../session.js";

type Found = { type: "order" | "shipment"; id: string; label: string; status: string };

export default function Warehouse() {
  const api = useApi();
  const [found, setFound] = useState<Found[]>();
  const lookup = useMutation({
    mutationFn: async (text: string): Promise<Found[]> => {
      const q = text.trim();
      const results: Found[] = [];
      if (q.startsWith("ord_")) {
        const o = (await api.GET("/orders/{id}", { params: { path: { id: q } } })).data!;
        results.push({ type: "order", id: o.id, label: o.shortId, status: o.status });
      } else if (q.startsWith("shp_")) {
        const s = (await api.GET("/shipments/{id}", { params: { path: { id: q } } })).data!;
        results.push({ type: "shipment", id: s.id, label: `${s.carrier} ${s.trackingNumber}`, status: s.status });
      } else {
        const shipments = (await api.GET("/shipments", { params: { query: { limit: 100 } } })).data!.data.filter((s) => s.trackingNumber === q);
        results.push(...shipments.map((s) => ({ type: "shipment" as const, id: s.id, label: `${s.carrier} ${s.trackingNumber}`, status: s.status })));
        const orders = (await api.GET("/orders", { params: { query: { limit: 100 } } })).data!.data.filter((o) => o.shortId === q);
        results.push(...orders.map((o) => ({ type: "order" as const, id: o.id, label: o.shortId, status: o.status })));
      }
      return results;
    },
    onSuccess: setFound,
  });
  const deliver = useMutation({
    mutationFn: async ({ id, receivedBy }: { id: string; receivedBy: string }) =>
      (await api.POST("/shipments/{id}/delivery", { params: { path: { id } }, body: receivedBy ? { receivedBy } : {} })).data!,
    onSuccess: (s) => setFound((list) => list?.map((f) => (f.id === s.id ? { ...f, status: s.status } : f))),
  });
  const count = useMutation({
    mutationFn: async (body: { productId: string; location: string; setTo: number }) =>
      api.POST("/inventory/adjustments", { body: { ...body, reason: "stock count" } }),
  });
  return (
    <section aria-labelledby="warehouse-title">
      <PageHeader titleId="warehouse-title" title="Warehouse" description="Confirm deliveries and count stock from the floor." />
      <div className="grid-2">
        <article className="panel stack" aria-labelledby="warehouse-lookup">
          <h2 id="warehouse-lookup">Find a shipment or order</h2>
          <form
            className="stack"
            aria-label="Look up"
            onSubmit={(event) => {
              event.preventDefault();
              lookup.mutate(String(new FormData(event.currentTarget).get("q")));
            }}
          >
            <label>
              Order, shipment or tracking number
              <input name="q" required inputMode="text" autoCapitalize="none" />
            </label>
            <button type="submit" className="primary">
              Look up
            </button>
          </form>
          {lookup.error && <ErrorState error={lookup.error} />}
          {found && found.length === 0 && <p className="muted">Nothing found.</p>}
          <ul className="stack cards" aria-label="Found">
            {found?.map((f) => (
              <li key={f.id} className="panel stack">
                <p className="row">
                  {f.type === "order" ? <Link to={`/orders/${f.id}`}>Order {f.label}</Link> : <strong>Shipment {f.label}</strong>}
                  <StatusPill status={f.status} />
                </p>
                {f.type === "shipment" && f.status !== "delivered" && (
                  <form
                    className="stack"
                    aria-label={`Confirm delivery of ${f.label}`}
                    onSubmit={(event) => {
                      event.preventDefault();
                      deliver.mutate({ id: f.id, receivedBy: String(new FormData(event.currentTarget).get("receivedBy") ?? "") });
                    }}
                  >
                    <label>
                      Received by
                      <input name="receivedBy" />
                    </label>
                    <button type="submit" className="primary">
                      Confirm delivery
                    </button>
                  </form>
                )}
              </li>
            ))}
          </ul>
          {deliver.error && <ErrorState error={deliver.error} />}
        </article>
        <article className="panel stack" aria-labelledby="warehouse-count">
          <h2 id="warehouse-count">Stock count</h2>
          <form
            className="stack"
            aria-label="Stock count"
            onSubmit={(event) => {
              event.preventDefault();
              const form = new FormData(event.currentTarget);
              count.mutate({ productId: String(form.get("productId")), location: String(form.get("location") || "default"), setTo: Number(form.get("setTo")) });
            }}
          >
            <ProductPicker />
            <label>
              Location
              <input name="location" defaultValue="default" />
            </label>
            <label>
              Counted
              <input name="setTo" type="number" min={0} required inputMode="numeric" />
            </label>
            <button type="submit" className="primary" disabled={count.isPending}>
              Save count
            </button>
          </form>
          {count.error && <ErrorState error={count.error} />}
          {count.isSuccess && (
            <p className="notice" role="status">
              Count saved.
            </p>
          )}
        </article>
      </div>
    </section>
  );
}
