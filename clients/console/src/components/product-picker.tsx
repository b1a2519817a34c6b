// Chooses a product by SKU and name wherever one is needed (never a raw id typed in).
import { useProducts } from "../data/queries.js";

export function ProductPicker({ name = "productId", label = "Product", defaultValue }: { name?: string; label?: string; defaultValue?: string }) {
  const products = useProducts();
  const list = [...(products.data?.values() ?? [])].sort((a, b) => a.sku.localeCompare(b.sku));
  return (
    <label>
      {label}
      <select name={name} required defaultValue={defaultValue} disabled={!products.data}>
        {!products.data && <option value="">Loading products…</option>}
        {products.data && list.length === 0 && <option value="">No products yet</option>}
        {list.map((p) => (
          <option key={p.id} value={p.id}>
            {p.sku} · {p.name}
          </option>
        ))}
      </select>
    </label>
  );
}
