// The gRPC surface of inventory: thin adapters from messages to the plain functions and back
// (null ↔ absent optional fields). Validation and rules live in the functions.
import type { InventoryServiceServer, Product as ProductMessage, UpdateProductRequest } from "@waybill/contracts/gen/waybill/inventory/v1/inventory.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { unary } from "@waybill/platform/grpc.js";
import type { Logger } from "@waybill/platform/logger.js";
import { pageLimit } from "@waybill/platform/pagination.js";
import { adjustStock } from "./adjustments.js";
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  missingProducts,
  updateProduct,
  type InventoryDeps,
  type Product,
  type ProductChanges,
} from "./products.js";
import { consumeStock, releaseStock, reserveStock } from "./reservations.js";
import { listStockLevels } from "./stock.js";

export function createInventoryHandlers(deps: InventoryDeps, logger: Logger): InventoryServiceServer {
  const { pool } = deps;
  return {
    listProducts: unary(logger, async (request) => {
      const page = await listProducts(pool, request.tenantId, pageLimit(request.limit), request.cursor);
      return { data: page.data.map(toMessage), nextCursor: page.nextCursor ?? undefined };
    }),
    createProduct: unary(logger, async (request) => {
      const { value, replayed } = await createProduct(
        deps,
        request.tenantId,
        {
          sku: request.sku,
          name: request.name,
          price: request.price ?? null,
          currency: request.currency ?? null,
          lowStockThreshold: request.lowStockThreshold ?? null,
        },
        request.idempotency,
      );
      return { product: toMessage(value), replayed };
    }),
    missingProducts: unary(logger, async (request) => ({ productIds: await missingProducts(pool, request.tenantId, request.productIds) })),
    getProduct: unary(logger, async (request) => ({ product: toMessage(await getProduct(pool, request.tenantId, request.id)) })),
    updateProduct: unary(logger, async (request) => ({
      product: toMessage(await updateProduct(deps, request.tenantId, request.id, changesOf(request))),
    })),
    deleteProduct: unary(logger, async (request) => {
      await deleteProduct(deps, request.tenantId, request.id);
      return {};
    }),
    listStockLevels: unary(logger, async (request) => {
      const page = await listStockLevels(
        pool,
        request.tenantId,
        { productId: request.productId, location: request.location },
        pageLimit(request.limit),
        request.cursor,
      );
      return { data: page.data, nextCursor: page.nextCursor ?? undefined };
    }),
    adjustStock: unary(logger, async (request) => {
      const { value, replayed } = await adjustStock(
        deps,
        request.tenantId,
        { productId: request.productId, location: request.location, delta: request.delta, setTo: request.setTo, reason: request.reason },
        request.idempotency,
      );
      return { adjustment: value, replayed };
    }),
    reserveStock: unary(logger, async (request) => ({
      reserved: await reserveStock(deps, request.tenantId, request.orderId, request.lines),
    })),
    releaseStock: unary(logger, async (request) => ({ released: await releaseStock(deps, request.tenantId, request.orderId) })),
    consumeStock: unary(logger, async (request) => ({ consumed: await consumeStock(deps, request.tenantId, request.orderId) })),
  };
}

const CLEARABLE = new Set(["price", "currency", "lowStockThreshold"]);

function changesOf(request: UpdateProductRequest): ProductChanges {
  const changes: ProductChanges = {};
  if (request.sku !== undefined) changes.sku = request.sku;
  if (request.name !== undefined) changes.name = request.name;
  if (request.price !== undefined) changes.price = request.price;
  if (request.currency !== undefined) changes.currency = request.currency;
  if (request.lowStockThreshold !== undefined) changes.lowStockThreshold = request.lowStockThreshold;
  for (const field of request.clearedFields) {
    if (!CLEARABLE.has(field)) throw appError("validation_failed", "The product is not valid.", { errors: [{ path: field, message: "cannot be null" }] });
    (changes as Record<string, null>)[field] = null;
  }
  return changes;
}

function toMessage(product: Product): ProductMessage {
  return {
    ...product,
    price: product.price ?? undefined,
    currency: product.currency ?? undefined,
    lowStockThreshold: product.lowStockThreshold ?? undefined,
  };
}
