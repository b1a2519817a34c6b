// Realistic examples for the OpenAPI document, made from each body's JSON Schema and its field
// names (ids with their prefixes, timestamps, amounts, a currency …), so /docs shows values an
// integrator would recognise and every schema has one without a hand-kept copy that can drift.
// services/edge/openapi.test.ts validates each example against its schema.

type Schema = Record<string, unknown>;

/** A fixed ULID body per id prefix: stable examples, and ids of different kinds look different. */
const ID_BODIES: Record<string, string> = {
  ord: "01jdzq7c2m4k8w5e7r9t1y4x6h",
  cus: "01jdzq5a9b3c7d1e5f9g3h7j1k",
  prd: "01jdzq4n8p2q6r0s4t8v2w6x0y",
  shp: "01jdzq9z3y7x1w5v9t3s7r1q5p",
  hook: "01jdzq2k6m0n4p8q2r6s0t4v8w",
  exe: "01jdzqa1b5c9d3e7f1g5h9j3k7",
  evt: "01jdzqb2c6d0e4f8g2h6j0k4m8",
  tok: "01jdzq3e7f1g5h9j3k7m1n5p9q",
  usr: "01jdzq1v5w9x3y7z1a5b9c3d7e",
  dev: "01jdzq8g2h6j0k4m8n2p6q0r4s",
  adj: "01jdzqc3d7e1f5g9h3j7k1m5n9",
  ses: "01jdzqd4e8f2g6h0j4k8m2n6p0",
  txn: "01jdzqe5f9g3h7j1k5m9n3p7q1",
};

/** The id prefix of a collection segment of a path. */
const PREFIX_BY_COLLECTION: Record<string, string> = {
  orders: "ord",
  customers: "cus",
  products: "prd",
  shipments: "shp",
  hooks: "hook",
  executions: "exe",
  events: "evt",
  stream: "evt",
  tokens: "tok",
  users: "usr",
  devices: "dev",
  adjustments: "adj",
  sessions: "ses",
  readings: "dev",
  test: "exe",
  deliveries: "exe",
};

const id = (prefix: string) => `${prefix}_${ID_BODIES[prefix] ?? ID_BODIES.ord}`;
const TIME = "2026-11-26T09:30:00.000Z";

/** Values by field name; the id of the answering resource comes from the path (see `resource`). */
const BY_NAME: Record<string, unknown> = {
  orderId: id("ord"),
  customerId: id("cus"),
  productId: id("prd"),
  shipmentId: id("shp"),
  hookId: id("hook"),
  executionId: id("exe"),
  eventId: id("evt"),
  tokenId: id("tok"),
  userId: id("usr"),
  messageId: "msg_01jdzqf6g0h4j8k2m6n0p4q8r2",
  transactionId: id("txn"),
  lastEventId: id("evt"),
  after: id("evt"),
  tenantId: "ten_01jdzq0a4b8c2d6e0f4g8h2j6k",
  email: "ada@example.com",
  password: "correct-horse-battery-staple",
  remember: true,
  sku: "CUP-ESP-090",
  shortId: "ORD-1042",
  currency: "EUR",
  price: "4.90",
  total: "9.80",
  amount: "9.80",
  quantity: 2,
  onHand: 40,
  reserved: 2,
  available: 38,
  delta: -2,
  setTo: 40,
  lowStockThreshold: 5,
  location: "main",
  reason: "cycle count",
  url: "https://erp.example.com/hooks/waybill",
  on: "order.created",
  kind: "order.created",
  carrier: "DHL",
  trackingNumber: "JD014600006281234567",
  dueDate: "2026-12-01",
  since: "2026-11-25T00:00:00Z",
  until: "2026-11-26T00:00:00Z",
  phone: "+49 30 1234567",
  line1: "Unter den Linden 1",
  line2: "3rd floor",
  city: "Berlin",
  region: "Berlin",
  postalCode: "10117",
  country: "DE",
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLcDq",
  token: "api-Zk3n9cQ2xT8vR1mW5yB7pL0aH4sD6fJ2gK9eN3uV1qY",
  accessToken: "eyJhbGciOiJFUzI1NiIsImtpZCI6ImtleS0xIn0.eyJzdWIiOiJ1c3JfMDFqZHpxMXY1dzl4M3k3ejFhNWI5YzNkN2UifQ.c2lnbmF0dXJl",
  tokenType: "Bearer",
  deviceId: "dock-door-3",
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/142.0",
  statusCode: 200,
  durationMs: 184,
  attempt: 1,
  responseBody: '{"received":true}',
  successCount: 12,
  errorCount: 0,
  queued: 3,
  limit: 20,
  cursor: id("ord"),
  disabledReason: null,
  revokedAt: null,
  error: null,
  time: TIME,
  at: TIME,
  expiresAt: "2027-01-01T00:00:00.000Z",
  eventKind: "order.created",
  note: "Left with the front desk",
  receivedBy: "M. Jensen",
  previousOrderStatus: "pending",
  currentOrderStatus: "ready",
  previousShipmentStatus: "pending",
  currentShipmentStatus: "inTransit",
};

/** Strings for fields that are null in most answers but not in every schema (an event about a disabled hook). */
const NON_NULL_BY_NAME: Record<string, string> = {
  disabledReason: "every delivery failed for 5 days (WEBHOOK_DISABLE_AFTER)",
};

/** Values an enum field prefers when it has them (a status that reads naturally in an example). */
const PREFERRED = ["ready", "inTransit", "active", "succeeded", "event", "none", "api", "member", "inventory"];

const NAMES_BY_RESOURCE: Record<string, string> = {
  cus: "Ada Lovelace",
  prd: "Espresso cup, 90 ml",
  hook: "Orders to the ERP",
  tok: "warehouse scanner",
};

interface ExampleContext {
  /** Id prefix of the resource the body describes (from the operation's path). */
  resource: string;
  /** Matches a value against the schema; examples that do not match are not used. */
  fits: (schema: Schema, value: unknown) => boolean;
}

/** The id prefix of the resource an operation's body is about: its path's last collection. */
export function resourceOf(path: string): string {
  const collections = path.split("/").filter((segment) => segment && !segment.startsWith(":") && !segment.startsWith("{"));
  for (const segment of collections.reverse()) if (PREFIX_BY_COLLECTION[segment]) return PREFIX_BY_COLLECTION[segment];
  return "ord";
}

export function exampleOf(schema: Schema, context: ExampleContext, name?: string): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches && !schema.properties) {
    const named = name !== undefined && name in BY_NAME ? BY_NAME[name] : undefined;
    if (named !== undefined && context.fits(schema, named)) return named;
    const branch = branches.find((b) => b.type !== "null") ?? branches[0];
    return exampleOf(branch, context, name);
  }
  if (Array.isArray(schema.allOf)) return exampleOf(Object.assign({}, ...(schema.allOf as Schema[])), context, name);
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== "null") : (schema.type as string | undefined);
  if (Array.isArray(schema.enum)) return pick(schema, schema.enum, context, name);
  if (name !== undefined && name in BY_NAME && type !== "object" && type !== "array" && context.fits(schema, BY_NAME[name])) return BY_NAME[name];
  if ((name === "nextCursor" || name === "cursor") && context.fits(schema, id(context.resource))) return id(context.resource);
  switch (type) {
    case "object":
      return objectExample(schema, context);
    case "array": {
      const item = exampleOf((schema.items as Schema) ?? {}, context, name === "data" ? undefined : singular(name));
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () => item);
    }
    case "string":
      return stringExample(schema, context, name);
    case "integer":
    case "number":
      return numberExample(schema, context, name);
    case "boolean":
      return name === "queued" || name === "connected" || name === "current";
    case "null":
      return null;
    default:
      return name !== undefined && name in BY_NAME ? BY_NAME[name] : {};
  }
}

function pick(schema: Schema, values: unknown[], context: ExampleContext, name?: string): unknown {
  const named = name !== undefined ? BY_NAME[name] : undefined;
  if (values.includes(named)) return named;
  if (name === "currency" && values.includes("EUR")) return "EUR";
  const preferred = PREFERRED.find((value) => values.includes(value));
  if (preferred !== undefined) return preferred;
  return values.find((value) => value !== null && context.fits(schema, value)) ?? values[0];
}

function singular(name?: string): string | undefined {
  if (name === "orderItems" || name === "items") return "item";
  return name?.endsWith("s") ? name.slice(0, -1) : name;
}

function objectExample(schema: Schema, context: ExampleContext): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  // Exactly one of several fields (oneOf of `required` lists): give the first branch's only.
  const oneOf = (schema.oneOf as Schema[] | undefined)?.map((branch) => (branch.required as string[] | undefined) ?? []);
  const excluded = new Set(
    oneOf
      ? oneOf
          .slice(1)
          .flat()
          .filter((field) => !oneOf[0].includes(field))
      : [],
  );
  const value: Record<string, unknown> = {};
  for (const [field, fieldSchema] of Object.entries(properties)) {
    if (excluded.has(field)) continue;
    value[field] =
      field === "id"
        ? id(context.resource)
        : field === "name" && NAMES_BY_RESOURCE[context.resource]
          ? NAMES_BY_RESOURCE[context.resource]
          : exampleOf(fieldSchema, context, field);
  }
  if (Object.keys(properties).length === 0 && schema.additionalProperties !== false) {
    return context.resource === "evt" || context.resource === "dev" ? { temperatureC: 4.2, doorOpen: false } : { "content-type": "application/json" };
  }
  return value;
}

function stringExample(schema: Schema, context: ExampleContext, name?: string): string {
  const candidates: unknown[] = [];
  if (name !== undefined && name in BY_NAME) candidates.push(BY_NAME[name]);
  if (name !== undefined && name in NON_NULL_BY_NAME) candidates.push(NON_NULL_BY_NAME[name]);
  if (name?.endsWith("At") || schema.format === "date-time") candidates.push(TIME);
  if (schema.format === "date") candidates.push("2026-12-01");
  if (schema.format === "email") candidates.push("ada@example.com");
  if (schema.format === "uri") candidates.push("https://erp.example.com/hooks/waybill");
  if (name === "id") candidates.push(id(context.resource));
  if (name?.endsWith("Id")) candidates.push(id(name.slice(0, -2) === "shipment" ? "shp" : context.resource));
  const pattern = typeof schema.pattern === "string" ? schema.pattern : undefined;
  const prefixed = pattern?.match(/^\^([a-z]+)_/);
  if (prefixed) candidates.push(id(prefixed[1]));
  candidates.push("Main warehouse", "main", "A1");
  for (const candidate of candidates) if (typeof candidate === "string" && context.fits(schema, candidate)) return candidate;
  return "a".repeat(Math.max(1, Number(schema.minLength ?? 1)));
}

function numberExample(schema: Schema, context: ExampleContext, name?: string): number {
  const named = name !== undefined ? BY_NAME[name] : undefined;
  if (typeof named === "number" && context.fits(schema, named)) return named;
  const minimum = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1;
  return Math.max(1, minimum);
}

/** Does a scalar value meet the schema's type, enum, pattern and bounds (enough to choose among candidates)? */
export function fitsScalar(schema: Schema, value: unknown): boolean {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return branches.some((branch) => fitsScalar(branch, value));
  if ("const" in schema) return schema.const === value;
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  if (value === null) return types.includes("null");
  if (typeof value === "string") {
    if (types.length > 0 && !types.includes("string")) return false;
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) return false;
    if (typeof schema.minLength === "number" && value.length < schema.minLength) return false;
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) return false;
    if (schema.format === "date-time" && Number.isNaN(Date.parse(value))) return false;
    return true;
  }
  if (typeof value === "number") {
    if (types.length > 0 && !types.includes("number") && !(types.includes("integer") && Number.isInteger(value))) return false;
    if (typeof schema.minimum === "number" && value < schema.minimum) return false;
    if (typeof schema.maximum === "number" && value > schema.maximum) return false;
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return false;
    return true;
  }
  return types.length === 0 || types.includes(typeof value);
}
