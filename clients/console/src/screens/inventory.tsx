// Inventory: every product with its stock (available, on hand, reserved), low and out-of-stock
// marked, a search by SKU or name, and a stock adjustment with a product picker.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { DataList } from "../components/data-list.js";
import { Boxes } from "../components/icons.js";
import { PageHeader } from "../components/page-header.js";
import { ProductPicker } from "../components/product-picker.js";
import { StatusPill } from "../components/status.js";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useProducts, useStock } from "../data/queries.js";
import { useApi } from "../session.js";
import { type StockState, stockOf } from "./inventory-stock.js";

export default function Inventory() {
  const api = useApi();
  const client = useQueryClient();
  const products = useProducts();
  const stock = useStock();
  const [q, setQ] = useState("");
  const [adjusting, setAdjusting] = useState(false);
  const adjust = useMutation({
    mutationFn: async (body: { productId: string; location?: string; delta: number; reason: string }) => api.POST("/inventory/adjustments", { body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["stock"] }),
  });
  const rows = products.data && stock.data ? [...products.data.values()].map((p) => stockOf(p, stock.data)) : undefined;
  const shown = (rows ?? []).filter((r) => !q || `${r.product.sku} ${r.product.name}`.toLowerCase().includes(q.toLowerCase()));
  return (
    <section aria-labelledby="inventory-title">
      <PageHeader
        titleId="inventory-title"
        title="Inventory"
        description="Stock of every product across its locations. Low means at or under its threshold; out means nothing available."
        actions={
          <button type="button" className="primary" onClick={() => setAdjusting(!adjusting)} aria-expanded={adjusting}>
            Adjust stock
          </button>
        }
      />
      {adjusting && (
        <form
          className="panel form-grid"
          aria-label="Adjust stock"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            adjust.mutate({
              productId: String(form.get("productId")),
              location: String(form.get("location") || "default"),
              delta: Number(form.get("delta")),
              reason: String(form.get("reason")),
            });
          }}
        >
          <ProductPicker />
          <label>
            Location
            <input name="location" defaultValue="default" />
          </label>
          <label>
            Change (+/−)
            <input name="delta" type="number" required step={1} inputMode="numeric" />
          </label>
          <label>
            Reason
            <input name="reason" required defaultValue="count" />
          </label>
          <button type="submit" className="primary" disabled={adjust.isPending}>
            Adjust
          </button>
        </form>
      )}
      {adjust.error && <ErrorState error={adjust.error} />}
      {adjust.isSuccess && (
        <p className="notice" role="status">
          Stock adjusted.
        </p>
      )}
      <search className="toolbar" aria-label="Find products">
        <label className="search-field">
          Search by SKU or name
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        </label>
      </search>
      <QueryView query={{ ...products, data: rows }} what="products">
        {() =>
          shown.length === 0 ? (
            <Empty
              icon={Boxes}
              title={q ? "No product matches." : "No products yet."}
              cli='waybill products create --sku WID-1 --name "Blue widget" --low-stock 5'
            >
              {q ? "Try another SKU or name." : "Create a product, then adjust its stock here."}
            </Empty>
          ) : (
            <DataList<StockState>
              label="Products and stock"
              rows={shown}
              rowKey={(r) => r.product.id}
              columns={[
                {
                  header: "Product",
                  card: "title",
                  cell: (r) => (
                    <Link to={`/products/${r.product.id}`}>
                      {r.product.sku} · {r.product.name}
                    </Link>
                  ),
                },
                {
                  header: "Stock",
                  card: "status",
                  cell: (r) => (r.status === "ok" ? <span className="muted">In stock</span> : <StatusPill status={r.status} />),
                },
                { header: "Available", numeric: true, cell: (r) => <span data-testid={`available-${r.product.sku}`}>{r.available}</span> },
                { header: "On hand", numeric: true, cell: (r) => r.onHand },
                { header: "Reserved", numeric: true, cell: (r) => r.reserved },
                { header: "Threshold", numeric: true, cell: (r) => r.product.lowStockThreshold ?? "—" },
              ]}
            />
          )
        }
      </QueryView>
    </section>
  );
}
