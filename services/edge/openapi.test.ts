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
  // biome-ignore lint/suspicious/noExplicitAny: the tests walk the generated document as plain JSON
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

/** A parsed OpenAPI document, walked by path in the assertions below. */
// biome-ignore lint/suspicious/noExplicitAny: JSON of any shape, read by key
type Json = any;

describe("webhooks section", () => {
  it("has one signed POST per event kind, its body the kind's event schema, with the delivery headers", async () => {
    const { EVENT_KINDS } = await import("@waybill/contracts/events/catalog.js");
    // biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON (webhooks, components)
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

describe("rules the server enforces, stated in the document", () => {
  const codesOf = (op: Json, status: string): string[] => op.responses[status].content["application/problem+json"].schema.allOf[1].properties.code.enum;

  it("lists each status's codes from the error catalog, with invalid_cursor and invalid_last_event_id where they apply", () => {
    const { document } = buildApi() as { document: Json };
    expect(codesOf(document.paths["/orders"].get, "400")).toEqual(expect.arrayContaining(["invalid_transaction_id", "invalid_query", "invalid_cursor"]));
    expect(codesOf(document.paths["/events/stream"].get, "400")).toContain("invalid_last_event_id");
    expect(codesOf(document.paths["/events/stream"].get, "429")).toContain("too_many_streams");
    expect(codesOf(document.paths["/orders/{id}"].get, "404")).toEqual(["not_found", "order_not_found"]);
    expect(codesOf(document.paths["/hooks/{id}/executions/{executionId}/retry"].post, "404")).toEqual([
      "not_found",
      "hook_not_found",
      "execution_not_found",
      "event_not_found",
    ]);
    expect(codesOf(document.paths["/inventory/adjustments"].post, "422")).toContain("unknown_product");
    expect(document.paths["/inventory/adjustments"].post.responses["404"]).toBeUndefined();
    for (const [path, methods] of Object.entries<Json>(document.paths)) {
      for (const [method, op] of Object.entries<Json>(methods)) {
        for (const [status, response] of Object.entries<Json>(op.responses)) {
          if (!/^[45]/.test(status)) continue;
          const media = response.content["application/problem+json"];
          expect(Object.keys(media.examples).sort(), `${method} ${path} ${status}`).toEqual([...codesOf(op, status)].sort());
        }
      }
    }
  });

  it("states patterns, enums, minProperties, oneOf and the price's currency", () => {
    const { document } = buildApi() as { document: Json };
    const body = (path: string, method: string) => document.paths[path][method].requestBody.content["application/json"].schema;
    expect(body("/orders", "post").properties.currency.enum).toEqual(expect.arrayContaining(["EUR", "USD", "JPY"]));
    expect(body("/orders", "post").properties.currency.enum).not.toContain("XYZ");
    for (const path of ["/orders/{id}", "/customers/{id}", "/products/{id}", "/hooks/{id}"]) expect(body(path, "put").minProperties, path).toBe(1);
    expect(body("/inventory/adjustments", "post").oneOf).toEqual([{ required: ["delta"] }, { required: ["setTo"] }]);
    expect(body("/products", "post").then.required).toEqual(["currency"]);
    expect(body("/hooks", "post").properties.url).toMatchObject({ format: "uri", pattern: expect.stringContaining("[Hh][Tt][Tt][Pp]") });
    const readings = document.paths["/devices/{deviceId}/readings"].post.parameters.find((p: { name: string }) => p.name === "deviceId");
    expect(readings.schema.pattern).toBe("^[A-Za-z0-9_-]{1,64}$");
    const key = document.paths["/orders"].post.parameters.find((p: { name: string }) => p.name === "Idempotency-Key");
    expect(new RegExp(key.schema.pattern).test("order-42")).toBe(true);
    expect(new RegExp(key.schema.pattern).test("")).toBe(false);
    expect(new RegExp(key.schema.pattern).test("with space")).toBe(false);
  });

  it("links each create to the operations on what it created", () => {
    const { document } = buildApi() as { document: Json };
    const links = document.paths["/orders"].post.responses["201"].links;
    expect(links.getOrdersById).toEqual({ operationId: "getOrdersById", parameters: { id: "$response.body#/id" } });
    expect(Object.keys(document.paths["/hooks"].post.responses["201"].links)).toEqual(
      expect.arrayContaining(["getHooksById", "putHooksById", "deleteHooksById", "postHooksByIdRotate"]),
    );
    const operationIds = new Set(Object.values<Json>(document.paths).flatMap((methods) => Object.values<Json>(methods).map((op) => op.operationId)));
    for (const methods of Object.values<Json>(document.paths)) {
      for (const op of Object.values<Json>(methods)) {
        for (const response of Object.values<Json>(op.responses))
          for (const link of Object.values<Json>(response.links ?? {})) expect(operationIds).toContain(link.operationId);
      }
    }
  });
});
