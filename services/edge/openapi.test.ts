// The OpenAPI document covers every endpoint the router mounts, with the schemas that validate it.
import { Router } from "@koa/router";
import { describe, expect, it } from "vitest";
import { registerRoutes } from "./app.js";
import { UNUSED_EVENT_STREAMS } from "./openapi-snapshot.js";
import { createBackendClients } from "./clients.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { Api } from "./route.js";

function buildApi() {
  // gRPC clients connect lazily; nothing is called here.
  const clients = createBackendClients({ identity: "127.0.0.1:1", orders: "127.0.0.1:1", inventory: "127.0.0.1:1", dispatcher: "127.0.0.1:1", devices: "127.0.0.1:1" });
  const api: Api = { router: new Router({ prefix: "/v1" }), routes: [] };
  registerRoutes(api, clients, UNUSED_EVENT_STREAMS);
  clients.close();
  return { api, document: buildOpenApiDocument(api.routes, "test") as { openapi: string; paths: Record<string, Record<string, any>> } };
}

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 and lists every mounted method and path", () => {
    const { api, document } = buildApi();
    expect(document.openapi).toBe("3.1.0");
    const mounted = api.router.stack
      .filter((layer) => layer.methods.length > 0)
      .flatMap((layer) =>
        layer.methods
          .filter((m) => m !== "HEAD")
          .map((m) => `${m.toLowerCase()} ${String(layer.path).replace(/^\/v1/, "").replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`),
      )
      .sort();
    const documented = Object.entries(document.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m} ${path}`))
      .sort();
    expect(mounted.length).toBeGreaterThan(0);
    expect(documented).toEqual(mounted);
  });

  it("describes request bodies, path and query parameters, idempotency and problem answers", () => {
    const { document } = buildApi();
    const create = document.paths["/orders"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["shortId", "customerId", "currency", "orderItems"]));
    expect(create.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Idempotency-Key", in: "header" })]));
    expect(create.responses["201"].content["application/json"].schema.properties.total).toEqual({ type: "string" });
    expect(create.responses["422"].content["application/problem+json"]).toBeDefined();
    expect(document.paths["/orders/{id}"].get.parameters).toEqual([
      expect.objectContaining({ name: "id", in: "path", required: true }),
      expect.objectContaining({ name: "X-Transaction-Id", in: "header", required: false }),
    ]);
    const list = document.paths["/products"].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(expect.arrayContaining(["limit", "cursor"]));
  });

  it("marks token and user creation as taking Idempotency-Key, and says a token replay has no value", () => {
    const { document } = buildApi();
    for (const path of ["/tokens", "/users"]) {
      expect(document.paths[path].post.parameters, path).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false })]));
    }
    const createToken = document.paths["/tokens"].post;
    expect(createToken.description).toMatch(/replay/i);
    expect(createToken.description).toContain("without `token`");
    const created = createToken.responses["201"].content["application/json"].schema;
    expect(created.properties.token).toMatchObject({ type: "string" });
    expect(created.required).toEqual(expect.arrayContaining(["id", "name", "type", "createdAt", "expiresAt"]));
    expect(created.required).not.toContain("token");
  });
});
