// /v1/orders/{id}/shipments and /v1/shipments: thin adapters from HTTP to the orders service,
// which owns shipments.
import type { OrdersServiceClient, Shipment } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { nullsFor } from "../patch.js";
import { route, type Api } from "../route.js";
import { pageOf } from "../schemas/common.js";
import { changeShipmentStatusBody, createShipmentBody, deliveryBody, listShipmentsQuery, shipmentOutput } from "../schemas/shipments.js";

export function shipmentsRoutes(api: Api, orders: OrdersServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/orders/:id/shipments",
      conflicts: ["order_not_shippable", "duplicate_tracking_number", "order_fully_shipped"],
      summary: "Ship a ready or inProgress order (the first shipment moves a ready order to inProgress)",
      tag: "shipments",
      capability: "shipments:write",
      body: createShipmentBody,
      response: shipmentOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, params, principal, idempotency }) => {
      const { shipment, replayed } = await callUnary(orders.createShipment.bind(orders), {
        tenantId: principal.tenantId,
        orderId: params.id,
        carrier: body.carrier,
        trackingNumber: body.trackingNumber,
        items: body.items ?? [],
        idempotency,
      });
      return { body: shipmentOut(shipment!), headers: { Location: `/v1/shipments/${shipment!.id}` }, replayed };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/shipments",
      summary: "List shipments, newest first",
      tag: "shipments",
      capability: "read",
      query: listShipmentsQuery,
      response: pageOf(shipmentOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(orders.listShipments.bind(orders), { tenantId: principal.tenantId, ...query });
      return { body: { data: page.data.map(shipmentOut), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    { method: "get", path: "/shipments/:id", summary: "Get a shipment with its timeline", tag: "shipments", capability: "read", response: shipmentOutput },
    async ({ params, principal }) => {
      const { shipment } = await callUnary(orders.getShipment.bind(orders), { tenantId: principal.tenantId, id: params.id });
      return { body: shipmentOut(shipment!) };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/shipments/:id/status",
      conflicts: ["invalid_status_transition"],
      summary: "Move a shipment to another status",
      tag: "shipments",
      capability: "shipments:write",
      body: changeShipmentStatusBody,
      response: shipmentOutput,
    },
    async ({ body, params, principal }) => {
      const { shipment } = await callUnary(orders.changeShipmentStatus.bind(orders), {
        tenantId: principal.tenantId,
        id: params.id,
        status: body.status,
        location: body.location ?? undefined,
        note: body.note ?? undefined,
      });
      return { body: shipmentOut(shipment!) };
    },
  );
  route(
    api,
    {
      method: "post",
      path: "/shipments/:id/delivery",
      conflicts: ["invalid_status_transition"],
      summary: "Record a shipment's delivery",
      tag: "shipments",
      capability: "shipments:write",
      body: deliveryBody,
      response: shipmentOutput,
    },
    async ({ body, params, principal }) => {
      const { shipment } = await callUnary(orders.recordDelivery.bind(orders), {
        tenantId: principal.tenantId,
        id: params.id,
        receivedBy: body.receivedBy ?? undefined,
        deliveredAt: body.deliveredAt ?? undefined,
        note: body.note ?? undefined,
      });
      return { body: shipmentOut(shipment!) };
    },
  );
}

function shipmentOut(shipment: Shipment) {
  return {
    ...nullsFor(shipment, ["deliveredAt", "receivedBy"]),
    timeline: shipment.timeline.map((entry) => nullsFor(entry, ["location", "note"])),
  };
}
