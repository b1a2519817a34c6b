// The warehouse flow, made for a phone: look up an order or a shipment, confirm a delivery,
// adjust a stock count.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { ErrorState } from "../components/states.js";
import { useApi } from "../session.js";

type Found = { type: "order"; id: string; label: string; status: string } | { type: "shipment"; id: string; label: string; status: string };

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
        const shipments = (await api.GET("/shipments", { params: { query: {} } })).data!.data.filter((s) => s.trackingNumber === q);
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
    <section aria-labelledby="warehouse-title" className="warehouse">
      <h1 id="warehouse-title">Warehouse</h1>
      <form
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
        <button type="submit">Look up</button>
      </form>
      {lookup.error && <ErrorState error={lookup.error} />}
      {found && found.length === 0 && <p className="state empty">Nothing found.</p>}
      <ul className="cards">
        {found?.map((f) => (
          <li key={f.id}>
            <p>
              {f.type === "order" ? <Link to={`/orders/${f.id}`}>Order {f.label}</Link> : `Shipment ${f.label}`} ·{" "}
              <span className={`badge ${f.status}`}>{f.status}</span>
            </p>
            {f.type === "shipment" && f.status !== "delivered" && (
              <form
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
                <button type="submit">Confirm delivery</button>
              </form>
            )}
          </li>
        ))}
      </ul>
      {deliver.error && <ErrorState error={deliver.error} />}
      <h2>Stock count</h2>
      <form
        aria-label="Stock count"
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          count.mutate({
            productId: String(form.get("productId")).trim(),
            location: String(form.get("location") || "default"),
            setTo: Number(form.get("setTo")),
          });
        }}
      >
        <label>
          Product id
          <input name="productId" required autoCapitalize="none" />
        </label>
        <label>
          Location
          <input name="location" defaultValue="default" />
        </label>
        <label>
          Counted
          <input name="setTo" type="number" min={0} required inputMode="numeric" />
        </label>
        <button type="submit">Save count</button>
      </form>
      {count.error && <ErrorState error={count.error} />}
      {count.isSuccess && (
        <p className="notice" role="status">
          Count saved.
        </p>
      )}
    </section>
  );
}
