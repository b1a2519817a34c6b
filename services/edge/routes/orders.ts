// /v1/orders: thin adapters from HTTP to the orders service.
import type { CreateOrderRequest, Order, OrdersServiceClient } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { batchingCaller } from "@waybill/platform/grpc-batch.js";
import { jsonPage } from "../json-page.js";
import { nullsFor, toPatchMessage } from "../patch.js";
import { route, type Api } from "../route.js";
import { pageOf } from "../schemas/common.js";
import { changeOrderStatusBody, createOrderBody, listOrdersQuery, orderOutput, updateOrderBody } from "../schemas/orders.js";

export function ordersRoutes(api: Api, orders: OrdersServiceClient): void {
  // New orders that arrive together go to the orders service as one call (grpc-batch.ts).
  const createOrder = batchingCaller(orders.createOrders.bind(orders), orders.createOrder.bind(orders), { weightOf: orderWeight });
  route(
    api,
    {
      method: "post",
      path: "/orders",
      conflicts: ["duplicate_short_id"],
      errors: ["unknown_product", "amount_out_of_range"],
      summary: "Create an order",
      tag: "orders",
      capability: "orders:write",
      body: createOrderBody,
      response: orderOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const { order, replayed } = await createOrder({
        tenantId: principal.tenantId,
        ...body,
        orderItems: body.orderItems.map((item) => ({ ...item, price: String(item.price) })),
        idempotency,
      });
      return { body: orderOut(order!), headers: { Location: `/v1/orders/${order!.id}` }, replayed };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/orders",
      summary: "List orders, newest first",
      tag: "orders",
      capability: "read",
      query: listOrdersQuery,
      response: pageOf(orderOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(orders.listOrders.bind(orders), { tenantId: principal.tenantId, ...query });
      // The orders service wrote the page's JSON; its bytes go out as they came.
      return { json: jsonPage(page.dataJson, page.nextCursor) };
    },
  );
  route(
    api,
    { method: "get", path: "/orders/:id", summary: "Get an order", tag: "orders", capability: "read", response: orderOutput },
    async ({ params, principal }) => {
      const { order } = await callUnary(orders.getOrder.bind(orders), { tenantId: principal.tenantId, id: params.id });
      return { body: orderOut(order!) };
    },
  );
  route(
    api,
    {
      method: "put",
      path: "/orders/:id",
      conflicts: ["order_not_editable"],
      summary: "Change an order's due date or customer",
      tag: "orders",
      capability: "orders:write",
      body: updateOrderBody,
      response: orderOutput,
    },
    async ({ body, params, principal }) => {
      const { fields, clearedFields } = toPatchMessage(body);
      const { order } = await callUnary(orders.updateOrder.bind(orders), { tenantId: principal.tenantId, id: params.id, ...fields, clearedFields });
      return { body: orderOut(order!) };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/orders/:id/status",
      conflicts: ["invalid_status_transition", "insufficient_stock", "order_partially_delivered"],
      summary: "Move an order to another status",
      tag: "orders",
      capability: "orders:write",
      body: changeOrderStatusBody,
      response: orderOutput,
    },
    async ({ body, params, principal }) => {
      const { order } = await callUnary(orders.changeOrderStatus.bind(orders), { tenantId: principal.tenantId, id: params.id, status: body.status });
      return { body: orderOut(order!) };
    },
  );
}

function orderOut(order: Order) {
  return nullsFor(order, ["dueDate"]);
}

/**
 * An upper bound of a new order's encoded size: its strings at 3 bytes per UTF-16 unit (the most
 * UTF-8 takes for one), plus a few bytes of framing per field.
 */
function orderWeight(request: CreateOrderRequest): number {
  const { tenantId, shortId, customerId, dueDate, idempotency } = request;
  let units =
    tenantId.length + shortId.length + customerId.length + (dueDate?.length ?? 0) + (idempotency ? idempotency.key.length + idempotency.requestHash.length : 0);
  for (const item of request.orderItems) units += item.productId.length + item.price.length;
  return 64 + 3 * units + 16 * request.orderItems.length;
}
