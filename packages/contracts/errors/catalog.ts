// The error catalog: every code any service answers, with its HTTP status, title and when it
// happens. Services throw by code (`appError`), the edge answers the catalog's status for a
// code, the OpenAPI document lists each operation's codes from here, and docs/errors.md is
// generated from it (`npm run docs:errors`).
import { AppError, type AppErrorOptions, type ErrorSpec, PLATFORM_ERRORS } from "@waybill/platform/errors.js";

/** RFC 9110's reason phrases for the statuses the API answers (the `title` of a problem). */
export const STATUS_TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

function at(status: keyof typeof STATUS_TITLES & number, when: string): ErrorSpec {
  return { status, title: STATUS_TITLES[status], when };
}

export const ERROR_CATALOG = {
  ...PLATFORM_ERRORS,
  // 400: the request itself is malformed.
  invalid_json: at(400, "The body is not valid JSON."),
  unreadable_body: at(400, "The request body could not be read (the connection broke off, or its length was wrong)."),
  invalid_query: at(400, "A query parameter is malformed or unknown (an unknown status, an `after` that is neither an event id nor a date)."),
  invalid_transaction_id: at(400, "X-Transaction-Id was sent (even empty) and is not `txn_` followed by 10 to 64 letters and digits."),
  invalid_idempotency_key: at(400, "Idempotency-Key was sent (even empty) and is not 1 to 255 visible ASCII characters."),
  invalid_last_event_id: at(400, "Last-Event-ID (header or `lastEventId` query parameter) is not an event id (`evt_…`)."),
  bad_request: at(400, "The HTTP request is malformed in a way no more specific code describes."),
  // 401: who is calling is not established.
  missing_credentials: at(401, "No Authorization header on an endpoint that needs one."),
  invalid_authorization_header: at(401, "The Authorization header is not `Bearer <token>`."),
  invalid_token: at(401, "The bearer token is unknown, or not a Waybill token."),
  token_expired: at(401, "The bearer token (API token or session JWT) has expired."),
  token_revoked: at(401, "The API token has been revoked (DELETE /v1/tokens/{id})."),
  invalid_session: at(401, "The session JWT is malformed or its signature does not verify."),
  session_expired: at(401, "The session has ended (expired, signed out or revoked); log in again."),
  session_revoked: at(
    401,
    "The session this access token belongs to was ended (signed out, ended from another device, or its refresh value was reused); log in again.",
  ),
  invalid_credentials: at(401, "POST /v1/auth/login: the email or the password is wrong."),
  // 403: known caller, not allowed.
  role_forbidden: at(403, "The user's role may not do this (a viewer writing, a non-admin managing tokens)."),
  token_type_forbidden: at(403, "The token's type may not do this (a sensor token outside device readings, a machine token managing tokens)."),
  // 404: nothing there, in the caller's tenant.
  route_not_found: at(404, "No endpoint has this path."),
  not_found: at(404, "The path names no resource (an id no resource can have)."),
  session_not_found: at(404, "DELETE /v1/auth/sessions/{id}: none of the caller's own sessions has this id."),
  order_not_found: at(404, "No order with this id in the caller's tenant."),
  customer_not_found: at(404, "No customer with this id in the caller's tenant."),
  shipment_not_found: at(404, "No shipment with this id (or tracking number) in the caller's tenant."),
  product_not_found: at(404, "No product with this id in the caller's tenant."),
  hook_not_found: at(404, "No hook with this id in the caller's tenant."),
  execution_not_found: at(404, "No execution with this id for this hook."),
  event_not_found: at(404, "No event with this id in the caller's tenant, or it is past retention."),
  token_not_found: at(404, "No API token with this id in the caller's tenant."),
  user_not_found: at(404, "Admin CLI: no user with this email."),
  tenant_not_found: at(404, "Admin CLI: no tenant with this name or id."),
  // 405
  method_not_allowed: at(405, "The path exists but does not answer this method (also unknown methods such as TRACE); `Allow` lists those it does."),
  // 409: the state of the resource refuses the request.
  duplicate_short_id: at(409, "An order with this `shortId` already exists in the tenant."),
  duplicate_sku: at(409, "A product with this `sku` already exists in the tenant."),
  duplicate_tracking_number: at(409, "A shipment with this `trackingNumber` already exists in the tenant."),
  duplicate_email: at(409, "Admin CLI: a user with this email already exists."),
  duplicate_tenant: at(409, "Admin CLI: a tenant with this name already exists."),
  invalid_status_transition: at(409, "The order or shipment cannot move from its current status to the one asked for."),
  insufficient_stock: at(409, "Not enough stock: an order cannot be reserved, or an adjustment would take on hand below zero or below what is reserved."),
  order_not_editable: at(409, "The order is completed or cancelled; it can no longer be changed."),
  order_not_shippable: at(409, "The order is not ready or inProgress, so it cannot get a shipment."),
  order_fully_shipped: at(409, "Every item of the order is already in a shipment."),
  order_partially_delivered: at(409, "Some of the order's shipments are delivered; it cannot be cancelled."),
  product_reserved: at(409, "The product has stock reserved by open orders; it cannot be deleted."),
  hook_paused: at(409, "The hook is paused; test, retry and recover need it active."),
  recovery_in_progress: at(409, "A recovery of this hook is already running."),
  // 413, 415
  payload_too_large: at(413, "The body is over the size limit (1 MiB by default)."),
  unsupported_media_type: at(415, "The body is not `application/json`."),
  unsupported_content_encoding: at(415, "The body is content-encoded (gzip …); only identity is accepted."),
  // 422: valid JSON, refused by the rules of the resource.
  invalid_character: at(422, "A string of the body contains the NUL character (\\u0000)."),
  unknown_product: at(422, "The body names a product that does not exist in the tenant (an order item, a stock adjustment)."),
  amount_out_of_range: at(422, "An amount (an order's total) is larger than the largest amount the currency can hold."),
  blocked_address: at(422, "The hook URL points to a private, loopback or link-local address and private networks are not allowed."),
  missing_identity_secret_key: at(
    422,
    "Admin CLI: rotating the session signing key needs IDENTITY_SECRET_KEY (or the key file npm start keeps in WAYBILL_DATA_DIR).",
  ),
  invalid_tenant_name: at(422, "Admin CLI: the tenant name is not 1 to 63 lowercase letters, digits and '-'."),
  invalid_password: at(422, "Admin CLI: the password is too short."),
  invalid_name: at(422, "Admin CLI: the token name is not 1 to 100 characters."),
  invalid_expires_at: at(422, "Admin CLI: --expires-at is not an ISO 8601 date-time with offset."),
  // 429
  rate_limited: at(429, "Too many requests from this credential (or logins from this address); wait for Retry-After."),
  too_many_streams: at(429, "This credential already holds the most open event streams allowed; close one first."),
  // 503
  events_unavailable: at(503, "The event stream cannot be served right now (NATS away); retry after Retry-After."),
  ingress_unavailable: at(503, "A device message could not be stored (NATS away); retry."),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Every code of the catalog, in its order (grouped by status). */
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** The error to throw for `code`: its status and title come from the catalog. */
export function appError(code: ErrorCode, detail: string, options?: AppErrorOptions): AppError {
  return new AppError(code, ERROR_CATALOG[code], detail, options);
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, code);
}
