// The Koa application: open ops endpoints, then /v1 behind authentication.
import { Router } from "@koa/router";
import Koa from "koa";
import type { Logger } from "@waybill/platform/logger.js";
import type { Ops } from "@waybill/platform/ops.js";
import type { BackendClients } from "./clients.js";
import type { TokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { authenticate } from "./middleware/authenticate.js";
import { jsonBody } from "./middleware/json-body.js";
import { answerRecorder } from "./middleware/answer-recorder.js";
import { problemResponses } from "./middleware/problem.js";
import { refuseInvalidTransactionId, requestContext } from "./middleware/request-context.js";
import { requestMetrics } from "./middleware/request-metrics.js";
import { ordersRoutes } from "./routes/orders.js";
import { customersRoutes } from "./routes/customers.js";
import { shipmentsRoutes } from "./routes/shipments.js";
import { productsRoutes } from "./routes/products.js";
import { inventoryRoutes } from "./routes/inventory.js";
import { eventRoutes, eventsRoutes } from "./routes/events.js";
import { eventsStreamRoute } from "./routes/events-stream.js";
import type { EventStreams } from "./events/event-streams.js";
import { hooksRoutes } from "./routes/hooks.js";
import { devicesRoutes } from "./routes/devices.js";
import type { Api, RouteSpec } from "./route.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { memoryRateLimitStore, type RateLimitStore } from "./rate-limit-store.js";
import { clientAddress, type TrustedProxies } from "./client-address.js";
import { identityRoutes, ownSessionsRoutes, sessionRoutes } from "./routes/identity.js";
import type { SessionVerifier } from "@waybill/contracts/identity-client/session-verifier.js";
import { buildOpenApiDocument } from "./openapi.js";
import { serveConsole } from "./console.js";
import { docsPage } from "./docs-page.js";

export const OPENAPI_VERSION = "1.0.0";
const PUBLIC_OPS_PATHS = new Set(["/healthz", "/readyz"]);
const LOGIN_PATH = "/v1/auth/login";

export interface AppDeps {
  /** The built console's folder; absent: no console (tests of the API alone). */
  consoleDir?: string;
  logger: Logger;
  ops: Ops;
  clients: BackendClients;
  tokens: TokenResolver;
  sessions: SessionVerifier;
  eventStreams: EventStreams;
  bodyLimitBytes: number;
  rateLimit: { requests: number; windowSeconds: number; loginPerMinute: number; sessionPerMinute: number };
  /** Where counts live; memory (this process only) when absent. */
  rateLimitStore?: RateLimitStore;
  /** Proxies whose X-Forwarded-For is believed for the client address the open endpoints' limiter counts (login, refresh, logout). */
  trustedProxies?: TrustedProxies;
  /** Test runs: the JSONL file every /v1 answer is recorded to (answer-recorder.ts). */
  answerLogFile?: string;
}

/** Every /v1 endpoint. Each call adds the Koa route and its spec for the OpenAPI document. */
export function registerRoutes(api: Api, clients: BackendClients, eventStreams: EventStreams): void {
  ordersRoutes(api, clients.orders);
  shipmentsRoutes(api, clients.orders);
  customersRoutes(api, clients.orders);
  productsRoutes(api, clients.inventory);
  inventoryRoutes(api, clients.inventory);
  eventsRoutes(api, clients.dispatcher);
  eventsStreamRoute(api, eventStreams);
  eventRoutes(api, clients.dispatcher);
  hooksRoutes(api, clients.dispatcher);
  identityRoutes(api, clients.identity);
  ownSessionsRoutes(api, clients.identity);
  devicesRoutes(api, clients.mqttGateway);
}

/** The /v1 endpoints that need no credential. */
export function registerPublicRoutes(api: Api, clients: BackendClients): void {
  sessionRoutes(api, clients.identity);
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true; // errors are logged by problemResponses, once
  app.use(requestContext(deps.logger));
  app.use(requestMetrics(deps.ops.registry));
  if (deps.answerLogFile) app.use(answerRecorder(deps.answerLogFile));
  app.use(problemResponses(deps.logger));
  app.use(refuseInvalidTransactionId());
  app.use(async (ctx, next) => {
    // Probes through the public port keep working; /metrics is only on the ops port.
    const answer = ctx.method === "GET" && PUBLIC_OPS_PATHS.has(ctx.path) ? await deps.ops.answer(ctx.path) : undefined;
    if (!answer) return next();
    ctx.status = answer.status;
    ctx.type = answer.contentType;
    ctx.body = answer.body;
  });

  const routes: RouteSpec[] = [];
  const open = new Router({ prefix: "/v1" });
  const store = deps.rateLimitStore ?? memoryRateLimitStore();
  const trusted = deps.trustedProxies ?? (() => false);
  const addressOf = (ctx: Koa.ParameterizedContext) =>
    `ip:${clientAddress(ctx.req.socket.remoteAddress ?? "", ctx.get("x-forwarded-for") || undefined, trusted)}`;
  const isLogin = (ctx: Koa.ParameterizedContext) => ctx.path === LOGIN_PATH;
  open.use(
    rateLimit({
      limiter: store.limiter("login", deps.rateLimit.loginPerMinute, 60),
      points: deps.rateLimit.loginPerMinute,
      key: (ctx) => (isLogin(ctx) ? addressOf(ctx) : undefined),
    }),
  );
  // Refresh and logout take a 256-bit cookie, nothing to guess: a limit of their own, so the
  // console's reloads behind one address (an office) do not use up its logins.
  open.use(
    rateLimit({
      limiter: store.limiter("session", deps.rateLimit.sessionPerMinute, 60),
      points: deps.rateLimit.sessionPerMinute,
      key: (ctx) => (isLogin(ctx) ? undefined : addressOf(ctx)),
    }),
  );
  open.use(jsonBody(deps.bodyLimitBytes));
  registerPublicRoutes({ router: open, routes }, deps.clients);

  const v1 = new Router({ prefix: "/v1" });
  v1.use(authenticate(deps.tokens, deps.sessions));
  v1.use(
    rateLimit({
      limiter: store.limiter("api", deps.rateLimit.requests, deps.rateLimit.windowSeconds),
      points: deps.rateLimit.requests,
      key: (ctx) => ctx.state.principal?.credentialId,
    }),
  );
  v1.use(jsonBody(deps.bodyLimitBytes));
  registerRoutes({ router: v1, routes }, deps.clients, deps.eventStreams);
  const openApi = buildOpenApiDocument(routes, OPENAPI_VERSION);
  app.use(async (ctx, next) => {
    // Open, like the ops endpoints: integrators read it before they have a token.
    if (ctx.method !== "GET" || ctx.path !== "/v1/openapi.json") return next();
    ctx.body = openApi;
  });
  // Open too: the reference rendered from that document, for people.
  app.use(docsPage());
  if (deps.consoleDir) app.use(serveConsole(deps.consoleDir));
  app.use(open.routes());
  app.use(v1.routes());
  // Not thrown: the router then sets Allow, which problemResponses keeps on the 405 answer.
  app.use(v1.allowedMethods({ throw: false }));
  return app;
}
