// Inventory: products with their stock per location, low-stock badges, and a stock adjustment.
import type { Product, StockLevel } from "@waybill/sdk";
import { Table } from "../components/table.js";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

/** At or under its threshold across every location. */
export function isLow(product: Product, stock: StockLevel[]): boolean {
  if (product.lowStockThreshold === null || product.lowStockThreshold === undefined) return false;
  return stock.filter((s) => s.productId === product.id).reduce((sum, s) => sum + s.available, 0) <= product.lowStockThreshold;
}

export default function Inventory() {
  const api = useApi();
  const client = useQueryClient();
  const products = useQuery({ queryKey: ["products"], queryFn: async () => (await api.GET("/products", { params: { query: { limit: 100 } } })).data!.data });
  const stock = useQuery({ queryKey: ["stock"], queryFn: async () => (await api.GET("/inventory", { params: { query: {} } })).data!.data });
  const adjust = useMutation({
    mutationFn: async (body: { productId: string; location?: string; delta: number; reason: string }) => api.POST("/inventory/adjustments", { body }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ["stock"] }),
  });
  return (
    <section aria-labelledby="inventory-title">
      <h1 id="inventory-title">Inventory</h1>
      <QueryView query={products} what="products">
        {(list) =>
          list.length === 0 ? (
            <Empty>No products yet.</Empty>
          ) : (
            <Table
              rows={list}
              rowKey={(p) => p.id}
              columns={[
                { header: "SKU", cell: (p) => p.sku },
                {
                  header: "Name",
                  cell: (p) => (
                    <>
                      {p.name} {isLow(p, stock.data ?? []) && <span className="badge low">low stock</span>}
                    </>
                  ),
                },
                {
                  header: "Stock per location (available)",
                  cell: (p) => {
                    const levels = (stock.data ?? []).filter((s) => s.productId === p.id);
                    return levels.length === 0 ? "none" : levels.map((s) => `${s.location}: ${s.available} (${s.onHand} on hand)`).join(", ");
                  },
                },
              ]}
            />
          )
        }
      </QueryView>
      <h2>Adjust stock</h2>
      <form
        className="inline-form"
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
        <label>
          Product
          <select name="productId" required>
            {(products.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.sku} {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Location
          <input name="location" defaultValue="default" />
        </label>
        <label>
          Change (+/−)
          <input name="delta" type="number" required step={1} />
        </label>
        <label>
          Reason
          <input name="reason" required defaultValue="count" />
        </label>
        <button type="submit" disabled={adjust.isPending}>
          Adjust
        </button>
      </form>
      {adjust.error && <ErrorState error={adjust.error} />}
      {adjust.isSuccess && (
        <p className="notice" role="status">
          Stock adjusted.
        </p>
      )}
    </section>
  );
}
