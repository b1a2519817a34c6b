// /v1/products: thin adapters from HTTP to the inventory service.
import type { InventoryServiceClient } from "../../gen/waybill/inventory/v1/inventory.js";
import { callUnary } from "../../platform/grpc.js";
import { route, type Api } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import { productOutput } from "../schemas/products.js";

export function productsRoutes(api: Api, inventory: InventoryServiceClient): void {
  route(
    api,
    { method: "get", path: "/products", summary: "List products", tag: "products", capability: "read", query: pageQuery, response: pageOf(productOutput) },
    async ({ query, principal }) => {
      const page = await callUnary(inventory.listProducts.bind(inventory), { tenantId: principal.tenantId, limit: query.limit, cursor: query.cursor });
      return {
        body: {
          data: page.data.map((p) => ({ ...p, price: p.price ?? null, currency: p.currency ?? null, lowStockThreshold: p.lowStockThreshold ?? null })),
          nextCursor: page.nextCursor ?? null,
        },
      };
    },
  );
}
