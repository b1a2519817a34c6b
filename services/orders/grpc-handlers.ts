// The gRPC adapter of the orders service: messages in, plain functions called, messages out.
// Optional proto fields are `undefined` when absent; API nulls travel as `clearedFields`.
import type {
  Address as AddressMessage,
  CreateOrderRequest,
  CreateOrderResponse,
  Customer as CustomerMessage,
  Order as OrderMessage,
  OrdersServiceServer,
  Shipment as ShipmentMessage,
} from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { unary } from "@waybill/platform/grpc.js";
import { batchedUnary } from "@waybill/platform/grpc-batch.js";
import type { Logger } from "@waybill/platform/logger.js";
import { pageLimit } from "@waybill/platform/pagination.js";
import { createCustomer, getCustomer, listCustomers, updateCustomer, type Address, type AddressInput, type Customer, type CustomerPatch } from "./customers.js";
import type { OrdersDeps } from "./deps.js";
import { changeOrderStatus } from "./order-transitions.js";
import { createOrder, getOrder, listOrdersJson, updateOrder, type Order, type OrderPatch } from "./orders.js";
import { applyShipmentStatus, createShipment, getShipment, listShipments, recordDelivery, type Shipment } from "./shipments.js";

export function ordersGrpcHandlers(deps: OrdersDeps, logger: Logger): OrdersServiceServer {
  const { pool } = deps;
  const newOrder = async (request: CreateOrderRequest): Promise<CreateOrderResponse> => {
    const { value, replayed } = await createOrder(
      deps,
      request.tenantId,
      {
        shortId: request.shortId,
        customerId: request.customerId,
        dueDate: request.dueDate ?? null,
        currency: request.currency,
        orderItems: request.orderItems,
      },
      request.idempotency,
    );
    return { order: orderMessage(value), replayed };
  };
  return {
    createOrder: unary(logger, newOrder),
    // The edge's way: the orders that reach it together, in one call (grpc-batch.ts).
    createOrders: batchedUnary(logger, newOrder),
    getOrder: unary(logger, async (request) => ({ order: orderMessage(await getOrder(pool, request.tenantId, request.id)) })),
    listOrders: unary(logger, async (request) => {
      const page = await listOrdersJson(pool, request.tenantId, {
        status: request.status,
        customerId: request.customerId,
        limit: pageLimit(request.limit),
        cursor: request.cursor,
      });
      return { dataJson: Buffer.from(page.dataJson), nextCursor: page.nextCursor ?? undefined };
    }),
    updateOrder: unary(logger, async (request) => {
      const cleared = clearedSet(request.clearedFields, ["dueDate"]);
      const patch: OrderPatch = { dueDate: cleared.has("dueDate") ? null : request.dueDate, customerId: request.customerId };
      return { order: orderMessage(await updateOrder(deps, request.tenantId, request.id, patch)) };
    }),
    changeOrderStatus: unary(logger, async (request) => ({
      order: orderMessage(await changeOrderStatus(deps, request.tenantId, request.id, request.status)),
    })),

    createCustomer: unary(logger, async (request) => {
      const { value, replayed } = await createCustomer(
        deps,
        request.tenantId,
        { name: request.name, email: request.email, phone: request.phone, address: request.address && addressInput(request.address) },
        request.idempotency,
      );
      return { customer: customerMessage(value), replayed };
    }),
    getCustomer: unary(logger, async (request) => ({ customer: customerMessage(await getCustomer(pool, request.tenantId, request.id)) })),
    listCustomers: unary(logger, async (request) => {
      const page = await listCustomers(pool, request.tenantId, pageLimit(request.limit), request.cursor);
      return { data: page.data.map(customerMessage), nextCursor: page.nextCursor ?? undefined };
    }),
    updateCustomer: unary(logger, async (request) => {
      const cleared = clearedSet(request.clearedFields, ["email", "phone", "address"]);
      const patch: CustomerPatch = {
        name: request.name,
        email: cleared.has("email") ? null : request.email,
        phone: cleared.has("phone") ? null : request.phone,
        address: cleared.has("address") ? null : request.address && addressInput(request.address),
      };
      return { customer: customerMessage(await updateCustomer(deps, request.tenantId, request.id, patch)) };
    }),

    createShipment: unary(logger, async (request) => {
      const { value, replayed } = await createShipment(
        deps,
        request.tenantId,
        request.orderId,
        { carrier: request.carrier, trackingNumber: request.trackingNumber, items: request.items },
        request.idempotency,
      );
      return { shipment: shipmentMessage(value), replayed };
    }),
    getShipment: unary(logger, async (request) => ({ shipment: shipmentMessage(await getShipment(pool, request.tenantId, request.id)) })),
    listShipments: unary(logger, async (request) => {
      const page = await listShipments(pool, request.tenantId, {
        orderId: request.orderId,
        status: request.status,
        limit: pageLimit(request.limit),
        cursor: request.cursor,
      });
      return { data: page.data.map(shipmentMessage), nextCursor: page.nextCursor ?? undefined };
    }),
    changeShipmentStatus: unary(logger, async (request) => ({
      shipment: shipmentMessage(
        await applyShipmentStatus(deps, request.tenantId, request.id, { status: request.status, location: request.location, note: request.note }),
      ),
    })),
    recordDelivery: unary(logger, async (request) => ({
      shipment: shipmentMessage(
        await recordDelivery(deps, request.tenantId, request.id, { receivedBy: request.receivedBy, deliveredAt: request.deliveredAt, note: request.note }),
      ),
    })),
  };
}

function clearedSet(fields: string[], allowed: string[]): Set<string> {
  const unknown = fields.filter((f) => !allowed.includes(f));
  if (unknown.length > 0)
    throw appError("validation_failed", "These fields cannot be null.", { errors: unknown.map((path) => ({ path, message: "must not be null" })) });
  return new Set(fields);
}

function addressInput(message: AddressMessage): AddressInput {
  return { ...message };
}

const orUndefined = <T>(value: T | null): T | undefined => value ?? undefined;

function orderMessage(order: Order): OrderMessage {
  return { ...order, dueDate: orUndefined(order.dueDate) };
}

function addressMessage(address: Address): AddressMessage {
  return { ...address, line2: orUndefined(address.line2), region: orUndefined(address.region), postalCode: orUndefined(address.postalCode) };
}

function customerMessage(customer: Customer): CustomerMessage {
  return {
    ...customer,
    email: orUndefined(customer.email),
    phone: orUndefined(customer.phone),
    address: customer.address ? addressMessage(customer.address) : undefined,
  };
}

function shipmentMessage(shipment: Shipment): ShipmentMessage {
  return {
    ...shipment,
    deliveredAt: orUndefined(shipment.deliveredAt),
    receivedBy: orUndefined(shipment.receivedBy),
    timeline: shipment.timeline.map((t) => ({ ...t, location: orUndefined(t.location), note: orUndefined(t.note) })),
  };
}
