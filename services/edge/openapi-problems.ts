// The problem answers of one operation, from the error catalog: each status with exactly the
// codes the operation can answer (a `code` enum, so a contract tool can check it), what each
// means, and an example per code.
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from "@waybill/contracts/errors/catalog.js";
import type { RouteSpec } from "./route.js";

/** The 404 code of a resource, by the path segment that names its collection. */
const NOT_FOUND_BY_COLLECTION: Record<string, ErrorCode> = {
  orders: "order_not_found",
  customers: "customer_not_found",
  shipments: "shipment_not_found",
  products: "product_not_found",
  hooks: "hook_not_found",
  executions: "execution_not_found",
  events: "event_not_found",
  tokens: "token_not_found",
  sessions: "session_not_found",
};

const CREDENTIAL_CODES: ErrorCode[] = [
  "missing_credentials",
  "invalid_authorization_header",
  "invalid_token",
  "token_expired",
  "token_revoked",
  "invalid_session",
  "session_expired",
  "session_revoked",
];

/** Every code the operation can answer, in catalog order. */
export function operationErrorCodes(spec: RouteSpec): ErrorCode[] {
  const withBody = spec.method === "post" || spec.method === "put";
  const open = spec.capability === "public";
  const segments = spec.path.split("/").filter(Boolean);
  const notFound = segments.flatMap((segment, index) => {
    const code = NOT_FOUND_BY_COLLECTION[segment];
    return code && segments[index + 1]?.startsWith(":") ? [code] : [];
  });
  const codes = new Set<ErrorCode>([
    "invalid_transaction_id",
    ...(withBody ? (["invalid_json", "unreadable_body"] as const) : []),
    ...(spec.query ? (["invalid_query"] as const) : []),
    ...(spec.query && "shape" in spec.query && "cursor" in (spec.query.shape as object) ? (["invalid_cursor"] as const) : []),
    ...(spec.idempotent ? (["invalid_idempotency_key"] as const) : []),
    // An open endpoint names its own 401s (login: invalid_credentials; refresh: session_expired).
    ...(open ? [] : CREDENTIAL_CODES),
    ...(open ? [] : (["role_forbidden", "token_type_forbidden"] as const)),
    ...(spec.path.includes(":") ? (["not_found", ...notFound] as const) : []),
    ...(spec.conflicts ?? []),
    ...(spec.idempotent ? (["idempotency_key_in_flight"] as const) : []),
    ...(withBody ? (["payload_too_large", "unsupported_media_type", "unsupported_content_encoding", "validation_failed", "invalid_character"] as const) : []),
    ...(spec.idempotent ? (["idempotency_key_reused"] as const) : []),
    ...(spec.errors ?? []),
    "rate_limited",
    "upstream_unavailable",
    "upstream_failed",
    "database_unavailable",
  ]);
  return [...codes];
}

/** The example of a problem with `code`, as the API answers it. */
export function problemExample(code: ErrorCode): Record<string, unknown> {
  const { status, title, when } = ERROR_CATALOG[code];
  return {
    type: `https://waybill.dev/problems/${code}`,
    title,
    status,
    detail: when,
    code,
    ...(code === "validation_failed" ? { errors: [{ path: "currency", message: "must be a 3-letter ISO 4217 currency code such as EUR" }] } : {}),
    ...(code === "unknown_product"
      ? { errors: [{ path: "orderItems.0.productId", message: "no product prd_01jdzq6v3m8k2w5e7r9t1y4u6i in this tenant" }] }
      : {}),
  };
}

/** `components.examples`: one problem example per code, which the operations' answers refer to. */
export function problemExamples(): Record<string, unknown> {
  return Object.fromEntries(ERROR_CODES.map((code) => [code, { summary: ERROR_CATALOG[code].when, value: problemExample(code) }]));
}

/** `responses` entries for every problem status of the operation. */
export function problemResponses(spec: RouteSpec): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrorCodes(spec)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      // The codes only: what each means is in its example's summary (components.examples) and docs/errors.md.
      description: `${ERROR_CATALOG[codes[0]].title}: ${codes.map((code) => `\`${code}\``).join(", ")}`,
      ...(status === 401 ? { headers: { "WWW-Authenticate": { schema: { type: "string" }, description: 'Bearer realm="waybill"' } } } : {}),
      ...(status === 429 || status === 503
        ? { headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before trying again" } } }
        : {}),
      content: {
        "application/problem+json": {
          schema: { allOf: [{ $ref: "#/components/schemas/Problem" }, { properties: { status: { const: status }, code: { enum: codes } } }] },
          examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
        },
      },
    };
  }
  return responses;
}
