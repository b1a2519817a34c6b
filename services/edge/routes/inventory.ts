// /v1/inventory: stock levels and adjustments, thin adapters to the inventory service.
import type { InventoryServiceClient } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { AppError } from "@waybill/platform/errors.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { route, type Api } from "../route.js";
import { pageOf } from "../schemas/common.js";
import { adjustmentBody, adjustmentOutput, stockLevelOutput, stockQuery } from "../schemas/inventory.js";

export function inventoryRoutes(api: Api, inventory: InventoryServiceClient): void {
  route(
    api,
    {
      method: "get",
      path: "/inventory",
      summary: "List stock levels per product and location, newest product first",
      tag: "inventory",
      capability: "read",
      query: stockQuery,
      response: pageOf(stockLevelOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(inventory.listStockLevels.bind(inventory), { tenantId: principal.tenantId, ...query });
      return { body: { data: page.data, nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/inventory/adjustments",
      conflicts: ["insufficient_stock"],
      errors: ["unknown_product"],
      summary: "Adjust on-hand stock by a delta or to a counted value",
      tag: "inventory",
      capability: "inventory:write",
      body: adjustmentBody,
      response: adjustmentOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const { adjustment, replayed } = await callUnary(inventory.adjustStock.bind(inventory), {
        tenantId: principal.tenantId,
        productId: body.productId,
        location: body.location ?? "",
        delta: body.delta,
        setTo: body.setTo,
        reason: body.reason,
        idempotency,
      }).catch((error: unknown) => {
        throw error instanceof AppError && error.code === "product_not_found" ? unknownProduct(body.productId, error) : error;
      });
      return { body: adjustment, replayed };
    },
  );
}

/** A product named in the body that the tenant does not have is a field error of the request (422), not a missing resource (404). */
function unknownProduct(productId: string, cause: AppError): AppError {
  return appError("unknown_product", `No product ${productId} in this tenant; create it first (POST /v1/products).`, {
    errors: [{ path: "productId", message: `no product ${productId} in this tenant` }],
    cause,
  });
}
