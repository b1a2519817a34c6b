// The OpenAPI document covers every endpoint the router mounts, with the schemas that validate it.
import { Router } from "@koa/router";
import { describe, expect, it } from "vitest";
import { registerPublicRoutes, registerRoutes } from "./app.js";
import { UNUSED_EVENT_STREAMS } from "./openapi-snapshot.js";
import { createBackendClients } from "./clients.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { Api } from "./route.js";

function buildApi() {
  // gRPC clients connect lazily; nothing is called here.
  const clients = createBackendClients({
    identity: "127.0.0.1:1",
    orders: "127.0.0.1:1",
    inventory: "127.0.0.1:1",
    dispatcher: "127.0.0.1:1",
    mqttGateway: "127.0.0.1:1",
  });
  const api: Api = { router: new Router({ prefix: "/v1" }), routes: [] };
  registerRoutes(api, clients, UNUSED_EVENT_STREAMS);
  registerPublicRoutes(api, clients);
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
          .map(
            (m) =>
              `${m.toLowerCase()} ${String(layer.path)
                .replace(/^\/v1/, "")
                .replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`,
          ),
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
      expect(document.paths[path].post.parameters, path).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false })]),
      );
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

describe("OpenAPI document, checked independently", () => {
  it("validates against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)", async () => {
    const { Validator } = await import("@seriousme/openapi-schema-validator");
    const { document } = buildApi();
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(document)));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("an invalid document fails the same check (the validator is not a no-op)", async () => {
    const { Validator } = await import("@seriousme/openapi-schema-validator");
    const { document } = buildApi();
    const broken = JSON.parse(JSON.stringify(document));
    broken.paths["/orders"].post.responses = { "201": { content: {} } }; // a response needs a description
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });
});

describe("statuses per operation", () => {
  const statuses = (op: { responses: Record<string, unknown> }) => Object.keys(op.responses).sort();

  it("lists body errors (413, 415, 422) only on operations that take a body", () => {
    const { document } = buildApi();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const codes = statuses(op);
        if (method === "get" || method === "delete") {
          expect(codes, `${method} ${path}`).not.toContain("413");
          expect(codes, `${method} ${path}`).not.toContain("415");
          expect(codes, `${method} ${path}`).not.toContain("422");
        } else {
          expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(["413", "415", "422"]));
        }
      }
    }
    expect(statuses(document.paths["/orders/{id}"].get)).toEqual(["200", "400", "401", "403", "404", "429", "503"]);
    expect(statuses(document.paths["/orders"].get)).toEqual(["200", "400", "401", "403", "429", "503"]);
    expect(statuses(document.paths["/products/{id}"].delete)).toEqual(["204", "400", "401", "403", "404", "409", "429", "503"]);
  });

  it("gives login no 403 and no 404, and a 401 that means wrong credentials", () => {
    const { document } = buildApi();
    const login = document.paths["/auth/login"].post;
    expect(statuses(login)).toEqual(["200", "400", "401", "413", "415", "422", "429", "503"]);
    expect(login.responses["401"].description).toContain("invalid_credentials");
    expect(login.security).toEqual([]);
  });

  it("lists 409 with its codes only where a conflict can happen", () => {
    const { document } = buildApi();
    expect(document.paths["/orders/{id}/status"].post.responses["409"].description).toContain("insufficient_stock");
    expect(document.paths["/orders"].post.responses["409"].description).toContain("duplicate_short_id");
    expect(document.paths["/hooks/{id}"].get.responses["409"]).toBeUndefined();
    expect(document.paths["/customers/{id}"].put.responses["409"]).toBeUndefined();
  });
});

describe("webhooks section", () => {
  it("has one signed POST per event kind, its body the kind's event schema, with the delivery headers", async () => {
    const { EVENT_KINDS } = await import("@waybill/contracts/events/catalog.js");
    const { document } = buildApi() as { document: any };
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_KINDS].sort());
    for (const kind of EVENT_KINDS) {
      const post = document.webhooks[kind].post;
      expect(post.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["X-Service-Webhook-Id", "X-Service-Signature"]));
      const ref: string = post.requestBody.content["application/json"].schema.$ref;
      const schema = document.components.schemas[ref.replace("#/components/schemas/", "")];
      expect(schema.properties.kind, kind).toEqual(expect.objectContaining({ const: kind }));
      expect(schema.required, kind).toEqual(expect.arrayContaining(["id", "kind", "time", "transactionId"]));
    }
    const created = document.components.schemas[document.webhooks["order.created"].post.requestBody.content["application/json"].schema.$ref.split("/").pop()];
    expect(Object.keys(created.properties)).toEqual(expect.arrayContaining(["orderId", "shortId", "orderItems", "total"]));
  });
});
