// /v1/customers: thin adapters from HTTP to the orders service, which owns customers.
import type { Customer, OrdersServiceClient } from "@waybill/contracts/gen/waybill/orders/v1/orders.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { nullsFor, toPatchMessage, withoutNulls } from "../patch.js";
import { route, type Api } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import { createCustomerBody, customerOutput, updateCustomerBody } from "../schemas/customers.js";

export function customersRoutes(api: Api, orders: OrdersServiceClient): void {
  route(
    api,
    {
      method: "post",
      path: "/customers",
      summary: "Create a customer",
      tag: "customers",
      capability: "customers:write",
      body: createCustomerBody,
      response: customerOutput,
      status: 201,
      idempotent: true,
    },
    async ({ body, principal, idempotency }) => {
      const { fields } = toPatchMessage(body);
      const { customer, replayed } = await callUnary(orders.createCustomer.bind(orders), {
        tenantId: principal.tenantId,
        ...fields,
        name: body.name,
        address: fields.address && withoutNulls(fields.address),
        idempotency,
      });
      return { body: customerOut(customer!), headers: { Location: `/v1/customers/${customer!.id}` }, replayed };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/customers",
      summary: "List customers, newest first",
      tag: "customers",
      capability: "read",
      query: pageQuery,
      response: pageOf(customerOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(orders.listCustomers.bind(orders), { tenantId: principal.tenantId, ...query });
      return { body: { data: page.data.map(customerOut), nextCursor: page.nextCursor ?? null } };
    },
  );
  route(
    api,
    { method: "get", path: "/customers/:id", summary: "Get a customer", tag: "customers", capability: "read", response: customerOutput },
    async ({ params, principal }) => {
      const { customer } = await callUnary(orders.getCustomer.bind(orders), { tenantId: principal.tenantId, id: params.id });
      return { body: customerOut(customer!) };
    },
  );
  route(
    api,
    {
      method: "put",
      path: "/customers/:id",
      summary: "Change a customer",
      tag: "customers",
      capability: "customers:write",
      body: updateCustomerBody,
      response: customerOutput,
    },
    async ({ body, params, principal }) => {
      const { fields, clearedFields } = toPatchMessage(body);
      const { customer } = await callUnary(orders.updateCustomer.bind(orders), {
        tenantId: principal.tenantId,
        id: params.id,
        ...fields,
        address: fields.address && withoutNulls(fields.address),
        clearedFields,
      });
      return { body: customerOut(customer!) };
    },
  );
}

function customerOut(customer: Customer) {
  const out = nullsFor(customer, ["email", "phone", "address"]);
  return { ...out, address: out.address && nullsFor(out.address, ["line2", "region", "postalCode"]) };
}
