// /v1/products: thin adapters from HTTP to the inventory service.
import type { Router } from "@koa/router";
import type { InventoryServiceClient } from "../../gen/waybill/inventory/v1/inventory.js";
import { callUnary } from "../../platform/grpc.js";
import { requires } from "../permissions.js";
import { pageQuery } from "../schemas.js";
import { parseQuery } from "../validation.js";

export function productsRoutes(router: Router, inventory: InventoryServiceClient): void {
  router.get("/products", requires("read"), async (ctx) => {
    const query = parseQuery(pageQuery, ctx.query);
    const page = await callUnary(inventory.listProducts.bind(inventory), {
      tenantId: ctx.state.principal!.tenantId,
      limit: query.limit,
      cursor: query.cursor,
    });
    ctx.body = {
      data: page.data.map((p) => ({ ...p, price: p.price ?? null, currency: p.currency ?? null, lowStockThreshold: p.lowStockThreshold ?? null })),
      nextCursor: page.nextCursor ?? null,
    };
  });
}
