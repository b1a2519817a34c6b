// Which products exist, as order creation needs to know: asking inventory for every order cost a
// gRPC round trip and a query there, for an answer that almost never changes. Products found to
// exist are remembered for PRODUCT_EXISTS_TTL_MS; a product.deleted event (a core subscription on
// the events subject, like token revocations) forgets one at once, and a reconnect, after which
// deletions may have been missed, forgets all. Unknown products are always asked for (a product
// created a moment ago must be found).
import { LRUCache } from "lru-cache";
import type { Bus } from "@waybill/platform/nats.js";
import type { InventoryPort } from "./inventory-port.js";

export const PRODUCT_EXISTS_TTL_MS = 60_000;
export const PRODUCT_EXISTS_MAX = 100_000;

export interface ProductExistence {
  /** The ids among `productIds` that are not products of the tenant. */
  missing(tenantId: string, productIds: string[]): Promise<string[]>;
  forget(tenantId: string, productId: string): void;
  forgetAll(): void;
}

const keyOf = (tenantId: string, productId: string) => `${tenantId}\u0000${productId}`;

export function createProductExistence(inventory: Pick<InventoryPort, "missingProducts">, ttlMs = PRODUCT_EXISTS_TTL_MS): ProductExistence {
  const known = new LRUCache<string, true>({ max: PRODUCT_EXISTS_MAX, ttl: ttlMs });
  return {
    async missing(tenantId, productIds) {
      const unknown = [...new Set(productIds.filter((id) => !known.has(keyOf(tenantId, id))))];
      if (unknown.length === 0) return [];
      const missing = await inventory.missingProducts(tenantId, unknown);
      const absent = new Set(missing);
      for (const id of unknown) if (!absent.has(id)) known.set(keyOf(tenantId, id), true);
      return missing;
    },
    forget: (tenantId, productId) => void known.delete(keyOf(tenantId, productId)),
    forgetAll: () => known.clear(),
  };
}

/** Forgets deleted products as their product.deleted events pass; everything after a reconnect. */
export function watchProductDeletions(bus: Bus, existence: ProductExistence): () => void {
  const subscription = bus.nc.subscribe(bus.topology.eventSubject("*", "product.deleted"), {
    callback: (error, message) => {
      if (error) return;
      try {
        const event = message.json<{ productId?: unknown }>();
        const tenantId = message.subject.split(".").at(-3);
        if (typeof event.productId === "string" && tenantId) existence.forget(tenantId, event.productId);
        else existence.forgetAll();
      } catch {
        existence.forgetAll();
      }
    },
  });
  let stopped = false;
  void (async () => {
    for await (const status of bus.nc.status()) {
      if (stopped) break;
      if (status.type === "reconnect") existence.forgetAll();
    }
  })().catch(() => {});
  return () => {
    stopped = true;
    subscription.unsubscribe();
  };
}
