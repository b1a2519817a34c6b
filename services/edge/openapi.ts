// The OpenAPI 3.1 document, generated from the same route specs and zod schemas that mount and
// validate the endpoints, so the document cannot drift from what the server accepts.
import { z } from "zod";
import { IDEMPOTENCY_KEY, type RouteSpec } from "./route.js";
import { CLIENT_TRANSACTION_ID } from "@waybill/platform/context.js";
import { eventKindSchemas } from "@waybill/contracts/events/catalog.js";
import { ERROR_CODES } from "@waybill/contracts/errors/catalog.js";
import { DEVICE_ID_PATTERN } from "@waybill/contracts/limits/devices.js";
import { exampleOf, fitsScalar, resourceOf } from "./openapi-examples.js";
import { addLinks } from "./openapi-links.js";
import { problemExamples, problemResponses } from "./openapi-problems.js";

const PROBLEM_SCHEMA = {
  type: "object",
  description: "RFC 9457 problem details; branch on `code` (docs/errors.md lists every code)",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string", description: "https://waybill.dev/problems/<code>" },
    title: { type: "string" },
    status: { type: "integer" },
    detail: { type: "string", description: "What went wrong, for people; may change" },
    code: { type: "string", enum: ERROR_CODES, description: "Stable machine-readable error code" },
    errors: {
      type: "array",
      items: { type: "object", required: ["path", "message"], properties: { path: { type: "string" }, message: { type: "string" } } },
    },
  },
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/**
 * Path parameters with a rule of their own (a malformed one is a 422). Resource ids have none: an
 * id that no resource can have simply names nothing (404).
 */
const PATH_PARAM_PATTERNS: Record<string, string> = { deviceId: DEVICE_ID_PATTERN.source };

/** A media type object: the schema and a realistic example made from it (openapi-examples.ts). */
function withExample(schema: Record<string, unknown>, path: string) {
  return { schema, example: exampleOf(schema, { resource: resourceOf(path), fits: fitsScalar }) };
}

function operation(spec: RouteSpec) {
  const pathParams = [...spec.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string", ...(PATH_PARAM_PATTERNS[m[1]] ? { pattern: PATH_PARAM_PATTERNS[m[1]] } : {}) },
    // The id of the collection the parameter follows (/hooks/:id → hook_…), for "Try it out".
    example: exampleOf({ type: "string" }, { resource: resourceOf(spec.path.slice(0, m.index)), fits: fitsScalar }, m[1]),
  }));
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
    ...(spec.headerParams ?? []).map((h) => ({
      name: h.name,
      in: "header",
      required: false,
      schema: { type: "string", ...(h.pattern ? { pattern: h.pattern } : {}) },
      description: h.description,
    })),
    ...(spec.idempotent
      ? [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            schema: { type: "string", pattern: IDEMPOTENCY_KEY.source },
            description: "Replays the first answer for 24 h; another body under the same key is a 422",
          },
        ]
      : []),
    {
      name: "X-Transaction-Id",
      in: "header",
      required: false,
      schema: { type: "string", pattern: CLIENT_TRANSACTION_ID.source },
      description:
        "Groups this request's events with those of other requests sent with the same id (their events share transactionId); echoed on the response, generated when absent",
    },
  ];
  const status = String(spec.status ?? 200);
  const success =
    spec.produces === "text/event-stream"
      ? {
          description: "A stream of Server-Sent Events",
          content: {
            "text/event-stream": {
              schema: { type: "string", description: "SSE messages: `id:` event id, `event:` kind, `data:` the event JSON; `:` comment lines are heartbeats" },
              example:
                'id: evt_01jdzqb2c6d0e4f8g2h6j0k4m8\nevent: order.created\ndata: {"id":"evt_01jdzqb2c6d0e4f8g2h6j0k4m8","kind":"order.created","time":"2026-11-26T09:30:00.000Z","transactionId":"txn_01jdzqe5f9g3h7j1k5m9n3p7q1","orderId":"ord_01jdzq7c2m4k8w5e7r9t1y4x6h"}\n\n: heartbeat\n\n',
            },
          },
        }
      : status === "204" || !spec.response
        ? { description: "Done" }
        : { description: "Success", content: { "application/json": withExample(jsonSchema(spec.response, "output"), spec.path) } };
  return {
    operationId: operationId(spec),
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    parameters: [...pathParams, ...queryParams, ...headerParams],
    ...(spec.capability === "public" ? { security: [] } : {}),
    ...(spec.body ? { requestBody: { required: true, content: { "application/json": withExample(jsonSchema(spec.body, "input"), spec.path) } } } : {}),
    responses: {
      [status]: success,
      ...problemResponses(spec),
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

const WEBHOOK_HEADERS = [
  {
    name: "X-Service-Webhook-Id",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^hook_[0-9a-z]{26}$" },
    description: "The hook this delivery is for.",
  },
  {
    name: "X-Service-Signature",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^t=\\d+(,v1=[0-9a-f]{64})+$" },
    description:
      "`t=<unix seconds>,v1=<hex>`: v1 is HMAC-SHA256 keyed with the hook's whole secret (`whsec_…` as UTF-8) over `<t>.<raw body>`. " +
      "Verify over the raw bytes before parsing, in constant time, and refuse a `t` more than 300 s from now. Stripe's SDK verifies it unchanged.",
  },
  { name: "User-Agent", in: "header", required: false, schema: { type: "string", const: "Waybill-Webhooks/1" } },
];

/** Component name of an event kind's schema: order.status.changed → OrderStatusChangedEvent. */
function eventSchemaName(kind: string): string {
  return `${kind
    .split(".")
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join("")}Event`;
}

/** OpenAPI 3.1 `webhooks`: one signed POST per event kind, its body the event (envelope + payload). */
function webhookDocument(): { webhooks: Record<string, unknown>; schemas: Record<string, unknown> } {
  const webhooks: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const { kind, schema } of eventKindSchemas()) {
    const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
    schemas[eventSchemaName(kind)] = rest;
    webhooks[kind] = {
      post: {
        operationId: `webhook-${kind.replace(/\./g, "-")}`,
        summary: `${kind}: delivered to every active hook whose \`on\` is ${kind}`,
        description:
          "A signed POST of the event as JSON. Answer 2xx within the hook timeout (30 s by default), then work; anything else is a failed attempt, " +
          "retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each ±20 %). Delivery is at least once: deduplicate by the event's `id`.",
        tags: ["webhooks"],
        parameters: WEBHOOK_HEADERS,
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { $ref: `#/components/schemas/${eventSchemaName(kind)}` },
              example: exampleOf(rest, { resource: "evt", fits: fitsScalar }),
            },
          },
        },
        responses: {
          "2XX": { description: "Received: the delivery succeeded (the body is kept, up to 4 KiB, in the execution record)" },
          default: { description: "Any other answer, or none within the timeout: a failed attempt, retried on the schedule" },
        },
      },
    };
  }
  return { webhooks, schemas };
}

export function buildOpenApiDocument(routes: RouteSpec[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const path = spec.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec);
  }
  addLinks(paths as Parameters<typeof addLinks>[0]);
  const { webhooks, schemas } = webhookDocument();
  return {
    openapi: "3.1.0",
    info: {
      title: "Waybill API",
      version,
      description:
        "Orders, shipments, products, stock and signed webhooks. Guides: the docs/ folder of the repository (overview, authentication, webhooks, MQTT devices, events, configuration, operations).",
    },
    servers: [{ url: "/v1" }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API token (api-…, cli-…, machine-…, sensor-…) or a session JWT" } },
      schemas: { Problem: PROBLEM_SCHEMA, ...schemas },
      examples: problemExamples(),
    },
    paths,
    webhooks,
  };
}
