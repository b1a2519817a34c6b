// /v1/orders: thin adapters from HTTP to the orders service.
import type { OrdersServiceClient } from "../../gen/waybill/orders/v1/orders.js";
import { callUnary } from "../../platform/grpc.js";
import { route, type Api } from "../route.js";
import { createOrderBody, orderOutput } from "../schemas/orders.js";

export function ordersRoutes(api: Api, orders: OrdersServiceClient): void {
  route(
    api,
    { method: "post", path: "/orders", summary: "Create an order", tag: "orders", capability: "orders:write", body: createOrderBody, response: orderOutput, status: 201, idempotent: true },
    async ({ body, principal, idempotency }) => {
      const { order, replayed } = await callUnary(orders.createOrder.bind(orders), {
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
    { method: "get", path: "/orders/:id", summary: "Get an order", tag: "orders", capability: "read", response: orderOutput },
    async ({ params, principal }) => {
      const { order } = await callUnary(orders.getOrder.bind(orders), { tenantId: principal.tenantId, id: params.id });
      return { body: orderOut(order!) };
    },
  );
}

function orderOut<T extends { dueDate?: string }>(order: T) {
  return { ...order, dueDate: order.dueDate ?? null };
}
