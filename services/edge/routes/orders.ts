// /v1/orders: thin adapters from HTTP to the orders service.
import type { Router } from "@koa/router";
import type { OrdersServiceClient } from "../../gen/waybill/orders/v1/orders.js";
import { callUnary } from "../../platform/grpc.js";
import { requires } from "../permissions.js";
import { createOrderBody } from "../schemas.js";
import { parseBody } from "../validation.js";

export function ordersRoutes(router: Router, orders: OrdersServiceClient): void {
  router.post("/orders", requires("orders:write"), async (ctx) => {
    const body = parseBody(createOrderBody, ctx.request.body);
    const { order } = await callUnary(orders.createOrder.bind(orders), {
      tenantId: ctx.state.principal!.tenantId,
      shortId: body.shortId,
      customerId: body.customerId,
      dueDate: body.dueDate,
      currency: body.currency,
      orderItems: body.orderItems.map((item) => ({ ...item, price: String(item.price) })),
    });
    ctx.status = 201;
    ctx.set("Location", `/v1/orders/${order!.id}`);
    ctx.body = orderOut(order!);
  });
  router.get("/orders/:id", requires("read"), async (ctx) => {
    const { order } = await callUnary(orders.getOrder.bind(orders), { tenantId: ctx.state.principal!.tenantId, id: ctx.params.id });
    ctx.body = orderOut(order!);
  });
}

function orderOut<T extends { dueDate?: string }>(order: T) {
  return { ...order, dueDate: order.dueDate ?? null };
}
