// The OpenAPI 3.1 document, generated from the same route specs and zod schemas that mount and
// validate the endpoints, so the document cannot drift from what the server accepts.
import { z } from "zod";
import type { RouteSpec } from "./route.js";
import { CLIENT_TRANSACTION_ID } from "../platform/context.js";

const PROBLEM_SCHEMA = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string" },
    code: { type: "string", description: "Stable machine-readable error code" },
    errors: { type: "array", items: { type: "object", properties: { path: { type: "string" }, message: { type: "string" } } } },
  },
};

const PROBLEM_STATUSES: Record<string, string> = {
  "400": "Malformed JSON or query parameter",
  "401": "Missing, unknown, expired or revoked credential",
  "403": "The credential's type or role may not do this",
  "404": "No such resource in the caller's tenant",
  "409": "State conflict",
  "413": "Body over the size limit",
  "415": "Body is not application/json",
  "422": "Validation failed",
  "429": "Rate limited",
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function problemResponse(description: string) {
  return { description, content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } };
}

function operation(spec: RouteSpec) {
  const pathParams = [...spec.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
  const queryParams =
    spec.query instanceof z.ZodObject
      ? Object.entries(spec.query.shape as Record<string, z.ZodType>).map(([name, schema]) => ({
          name,
          in: "query",
          required: !schema.safeParse(undefined).success,
          schema: jsonSchema(schema, "input"),
        }))
      : [];
  const headerParams = [
    ...(spec.headerParams ?? []).map((h) => ({ name: h.name, in: "header", required: false, schema: { type: "string", ...(h.pattern ? { pattern: h.pattern } : {}) }, description: h.description })),
    ...(spec.idempotent
      ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 }, description: "Replays the first answer for 24 h; another body under the same key is a 422" }]
      : []),
    {
      name: "X-Transaction-Id",
      in: "header",
      required: false,
      schema: { type: "string", pattern: CLIENT_TRANSACTION_ID.source },
      description: "Groups this request's events with those of other requests sent with the same id (their events share transactionId); echoed on the response, generated when absent",
    },
  ];
  const status = String(spec.status ?? 200);
  const success =
    spec.produces === "text/event-stream"
      ? {
          description: "A stream of Server-Sent Events",
          content: { "text/event-stream": { schema: { type: "string", description: "SSE messages: `id:` event id, `event:` kind, `data:` the event JSON; `:` comment lines are heartbeats" } } },
        }
      : status === "204" || !spec.response
        ? { description: "Done" }
        : { description: "Success", content: { "application/json": { schema: jsonSchema(spec.response, "output") } } };
  return {
    operationId: operationId(spec),
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    parameters: [...pathParams, ...queryParams, ...headerParams],
    ...(spec.capability === "public" ? { security: [] } : {}),
    ...(spec.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(spec.body, "input") } } } } : {}),
    responses: {
      [status]: success,
      ...Object.fromEntries(Object.entries(PROBLEM_STATUSES).map(([code, description]) => [code, problemResponse(description)])),
    },
  };
}

function operationId(spec: RouteSpec): string {
  const words = spec.path
    .split("/")
    .filter(Boolean)
    .map((part) => (part.startsWith(":") ? `by-${part.slice(1)}` : part));
  return [spec.method, ...words].join("-").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function buildOpenApiDocument(routes: RouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const path = spec.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Waybill API", version, description: "Orders, shipments, products, stock and signed webhooks. See API.md for the contract." },
    servers: [{ url: "/v1" }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API token (api-…, cli-…, machine-…, sensor-…) or a session JWT" } },
      schemas: { Problem: PROBLEM_SCHEMA },
    },
    paths,
  };
}
