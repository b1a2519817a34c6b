// /v1/events (the tenant's event log, from the dispatcher) and /v1/event-kinds (the catalog).
import type { DispatcherServiceClient } from "@waybill/contracts/gen/waybill/dispatcher/v1/dispatcher.js";
import { eventKindSchemas } from "@waybill/contracts/events/catalog.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { jsonPage } from "../json-page.js";
import { route, type Api } from "../route.js";
import { pageOf, pageQuery } from "../schemas/common.js";
import { executionOutput } from "../schemas/hooks.js";
import { executionOut } from "./hooks.js";
import { eventKindsOutput, eventOutput, eventsQuery } from "../schemas/events.js";

export function eventsRoutes(api: Api, dispatcher: DispatcherServiceClient): void {
  const kinds = { data: eventKindSchemas() }; // computed once: the catalog is static
  route(
    api,
    {
      method: "get",
      path: "/event-kinds",
      summary: "List event kinds with the JSON Schema of each",
      tag: "events",
      capability: "read",
      response: eventKindsOutput,
    },
    async () => ({ body: kinds }),
  );
  route(
    api,
    {
      method: "get",
      path: "/events",
      summary: "Read the tenant's event log, newest first",
      tag: "events",
      capability: "read",
      query: eventsQuery,
      response: pageOf(eventOutput),
    },
    async ({ query, principal }) => {
      const page = await callUnary(dispatcher.listEvents.bind(dispatcher), { tenantId: principal.tenantId, ...query });
      // Each event is the JSON the event log holds; its bytes go out as they came.
      return { json: jsonPage(page.eventsJson, page.nextCursor) };
    },
  );
}

/**
 * /v1/events/{id} and its deliveries. Mounted after /v1/events/stream: the router runs the first
 * route that matches, and `stream` would otherwise be taken for an event id.
 */
export function eventRoutes(api: Api, dispatcher: DispatcherServiceClient): void {
  route(
    api,
    {
      method: "get",
      path: "/events/:id",
      summary: "Get one event of the tenant's event log",
      description: "The event as GET /events lists it and as a webhook delivery's body carries it. Events are kept for RETENTION_EVENTS (30 days by default).",
      tag: "events",
      capability: "read",
      response: eventOutput,
    },
    async ({ params, principal }) => {
      const { eventJson } = await callUnary(dispatcher.getEvent.bind(dispatcher), { tenantId: principal.tenantId, id: params.id });
      return { json: Buffer.from(eventJson) };
    },
  );
  route(
    api,
    {
      method: "get",
      path: "/events/:id/deliveries",
      summary: "List an event's execution records to every hook, newest first",
      description: "Every delivery attempt of this event (first attempts, retries, manual re-deliveries, recoveries) to any hook of the tenant.",
      tag: "events",
      capability: "read",
      query: pageQuery,
      response: pageOf(executionOutput),
    },
    async ({ query, params, principal }) => {
      const page = await callUnary(dispatcher.listEventExecutions.bind(dispatcher), { tenantId: principal.tenantId, eventId: params.id, ...query });
      return { body: { data: page.data.map(executionOut), nextCursor: page.nextCursor ?? null } };
    },
  );
}
