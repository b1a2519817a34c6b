// /v1/products: thin adapters from HTTP to the inventory service.
import type { InventoryServiceClient, Product } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { route, type Api } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import { createProductBody, productOutput, updateProductBody } from "../schemas/products.js";

const CLEARABLE = ["price", "currency", "lowStockThreshold"] as const;

export function productsRoutes(api: Api, inventory: InventoryServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/products",
      conflicts: ["duplicate_sku"],
      summary: "Create a product",
      tag: "products",
      capability: "products:write",
      body: createProductBody,
      response: productOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const { product, replayed } = await callUnary(inventory.createProduct.bind(inventory), {
        tenantId: principal.tenantId,
        sku: body.sku,
        name: body.name,
        price: body.price == null ? undefined : String(body.price),
        currency: body.currency ?? undefined,
        lowStockThreshold: body.lowStockThreshold ?? undefined,
        idempotency,
      });
      return { body: productOut(product!), headers: { Location: `/v1/products/${product!.id}` }, replayed };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/products",
      summary: "List products, newest first",
      tag: "products",
      capability: "read",
      query: pageQuery,
      response: pageOf(productOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(inventory.listProducts.bind(inventory), { tenantId: principal.tenantId, limit: query.limit, cursor: query.cursor });
      return { body: { data: page.data.map(productOut), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    { method: "get", path: "/products/:id", summary: "Get a product", tag: "products", capability: "read", response: productOutput },
    async ({ params, principal }) => {
      const { product } = await callUnary(inventory.getProduct.bind(inventory), { tenantId: principal.tenantId, id: params.id });
      return { body: productOut(product!) };
    },
  );
  route(
    api,
    {
      method: "put",
      path: "/products/:id",
      conflicts: ["duplicate_sku"],
      summary: "Update a product (a lowStockThreshold raised above a location's available stock emits inventory.low)",
      tag: "products",
      capability: "products:write",
      body: updateProductBody,
      response: productOutput,
    },
    async ({ body, params, principal }) => {
      const { product } = await callUnary(inventory.updateProduct.bind(inventory), {
        tenantId: principal.tenantId,
        id: params.id,
        sku: body.sku,
        name: body.name,
        price: body.price == null ? undefined : String(body.price),
        currency: body.currency ?? undefined,
        lowStockThreshold: body.lowStockThreshold ?? undefined,
        // null in the body clears the field; absent keeps it.
        clearedFields: CLEARABLE.filter((field) => body[field] === null),
      });
      return { body: productOut(product!) };
    },
  );
  route(
    api,
    {
      method: "delete",
      path: "/products/:id",
      conflicts: ["product_reserved"],
      summary: "Delete a product (refused while open orders hold its stock)",
      tag: "products",
      capability: "products:write",
      status: 204,
    },
    async ({ params, principal }) => {
      await callUnary(inventory.deleteProduct.bind(inventory), { tenantId: principal.tenantId, id: params.id });
      return {};
    },
  );
}

function productOut(product: Product) {
  return { ...product, price: product.price ?? null, currency: product.currency ?? null, lowStockThreshold: product.lowStockThreshold ?? null };
}
