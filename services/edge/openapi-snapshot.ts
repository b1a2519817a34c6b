// The OpenAPI document as the edge serves it, built without a running system: the SDK generator
// and its freshness check read it from here (gRPC clients connect lazily; nothing is called).
import { Router } from "@koa/router";
import { OPENAPI_VERSION, registerPublicRoutes, registerRoutes } from "./app.js";
import { createBackendClients } from "./clients.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { Api, RouteSpec } from "./route.js";
import type { EventStreams } from "./events/event-streams.js";

const UNUSED_BACKEND = "127.0.0.1:1";
/** For building the document without a bus: never asked to serve. */
export const UNUSED_EVENT_STREAMS: EventStreams = {
  serve: () => Promise.reject(new Error("not serving")),
  open: () => 0,
  closeAll: () => Promise.resolve(),
};

export function openApiSnapshot(): Record<string, unknown> {
  const clients = createBackendClients({
    identity: UNUSED_BACKEND,
    orders: UNUSED_BACKEND,
    inventory: UNUSED_BACKEND,
    dispatcher: UNUSED_BACKEND,
    mqttGateway: UNUSED_BACKEND,
  });
  try {
    const routes: RouteSpec[] = [];
    const open: Api = { router: new Router({ prefix: "/v1" }), routes };
    const v1: Api = { router: new Router({ prefix: "/v1" }), routes };
    registerPublicRoutes(open, clients);
    registerRoutes(v1, clients, UNUSED_EVENT_STREAMS);
    return buildOpenApiDocument(routes, OPENAPI_VERSION);
  } finally {
    clients.close();
  }
}
