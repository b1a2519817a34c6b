// /v1/events (the tenant's event log, from the dispatcher) and /v1/event-kinds (the catalog).
import type { DispatcherServiceClient } from "@waybill/contracts/gen/waybill/dispatcher/v1/dispatcher.js";
import { eventKindSchemas } from "@waybill/contracts/events/catalog.js";
import { callUnary } from "@waybill/platform/grpc.js";
import { jsonPage } from "../json-page.js";
import { route, type Api } from "../route.js";
import { pageOf } from "../schemas/common.js";
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
