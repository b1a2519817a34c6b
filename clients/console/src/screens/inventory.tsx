// Inventory: products with their stock per location, low-stock badges, and a stock adjustment.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Empty, ErrorState, QueryView } from "../components/states.js";
import { useApi } from "../session.js";

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
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">SKU</th>
                    <th scope="col">Name</th>
                    <th scope="col">Stock per location (available)</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((p) => {
                    const levels = (stock.data ?? []).filter((s) => s.productId === p.id);
                    const available = levels.reduce((sum, s) => sum + s.available, 0);
                    const low = p.lowStockThreshold !== null && p.lowStockThreshold !== undefined && available <= p.lowStockThreshold;
                    return (
                      <tr key={p.id}>
                        <td>{p.sku}</td>
                        <td>
                          {p.name} {low && <span className="badge low">low stock</span>}
                        </td>
                        <td>{levels.length === 0 ? "none" : levels.map((s) => `${s.location}: ${s.available} (${s.onHand} on hand)`).join(", ")}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
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
