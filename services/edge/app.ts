// The Koa application: open ops endpoints, then /v1 behind authentication.
import { Router } from "@koa/router";
import Koa from "koa";
import type { Logger } from "../platform/logger.js";
import type { Ops } from "../platform/ops.js";
import type { BackendClients } from "./clients.js";
import type { TokenResolver } from "../identity/token-resolver.js";
import { authenticate } from "./middleware/authenticate.js";
import { jsonBody } from "./middleware/json-body.js";
import { problemResponses } from "./middleware/problem.js";
import { requestContext } from "./middleware/request-context.js";
import { ordersRoutes } from "./routes/orders.js";
import { productsRoutes } from "./routes/products.js";
import { eventsRoutes } from "./routes/events.js";
import type { Api } from "./route.js";
import { buildOpenApiDocument } from "./openapi.js";

export const OPENAPI_VERSION = "1.0.0";

export interface AppDeps {
  logger: Logger;
  ops: Ops;
  clients: BackendClients;
  tokens: TokenResolver;
  bodyLimitBytes: number;
}

/** Every /v1 endpoint. Each call adds the Koa route and its spec for the OpenAPI document. */
export function registerRoutes(api: Api, clients: BackendClients): void {
  ordersRoutes(api, clients.orders);
  productsRoutes(api, clients.inventory);
  eventsRoutes(api, clients.dispatcher);
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true; // errors are logged by problemResponses, once
  app.use(requestContext(deps.logger));
  app.use(problemResponses(deps.logger));
  app.use(async (ctx, next) => {
    const answer = ctx.method === "GET" ? await deps.ops.answer(ctx.path) : undefined;
    if (!answer) return next();
    ctx.status = answer.status;
    ctx.type = answer.contentType;
    ctx.body = answer.body;
  });

  const v1 = new Router({ prefix: "/v1" });
  v1.use(authenticate(deps.tokens));
  v1.use(jsonBody(deps.bodyLimitBytes));
  const api: Api = { router: v1, routes: [] };
  registerRoutes(api, deps.clients);
  const openApi = buildOpenApiDocument(api.routes, OPENAPI_VERSION);
  app.use(async (ctx, next) => {
    // Open, like the ops endpoints: integrators read it before they have a token.
    if (ctx.method !== "GET" || ctx.path !== "/v1/openapi.json") return next();
    ctx.body = openApi;
  });
  app.use(v1.routes());
  app.use(v1.allowedMethods({ throw: true }));
  return app;
}
