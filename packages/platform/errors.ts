// One coded error type for every service. Each error has a stable `code` that clients can branch
// on; its HTTP status and title come from the error catalog (@waybill/contracts/errors/catalog.ts,
// which includes PLATFORM_ERRORS below). The gRPC status is derived only at the edges.
import { status as GrpcStatus } from "@grpc/grpc-js";

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

/** One entry of the error catalog: the answer a code gets and when it is given. */
export interface ErrorSpec {
  readonly status: number;
  readonly title: string;
  /** When the code is answered, in a sentence a client developer can act on (docs/errors.md). */
  readonly when: string;
}

export interface AppErrorOptions {
  /** One entry per offending field (422s, some 400s). */
  errors?: FieldError[];
  /** Extra response headers (Allow …); Retry-After and WWW-Authenticate follow from the status. */
  headers?: Record<string, string>;
  /** The error this one reports (kept for logs; never sent to clients). */
  cause?: unknown;
}

/** Seconds a client is told to wait (Retry-After) before trying a request answered 503 again. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** Headers RFC 9110 and API.md ask for with a status, whatever the code. */
function headersOfStatus(status: number): Record<string, string> {
  if (status === 401) return { "WWW-Authenticate": 'Bearer realm="waybill"' };
  if (status === 503) return { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
  return {};
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly errors?: FieldError[];
  /** Extra response headers (Retry-After, WWW-Authenticate, Allow …). */
  readonly headers: Record<string, string>;

  /** Services do not call this directly: they throw by code with `appError` (contracts/errors/catalog.ts). */
  constructor(code: string, spec: Pick<ErrorSpec, "status" | "title">, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = spec.status;
    this.title = spec.title;
    this.errors = options.errors;
    this.headers = { ...headersOfStatus(spec.status), ...options.headers };
  }

  toProblem(): ProblemDetails {
    return {
      type: `https://waybill.dev/problems/${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(this.errors && this.errors.length > 0 ? { errors: this.errors } : {}),
    };
  }
}

/** The codes this package raises itself; the catalog in @waybill/contracts includes them. */
export const PLATFORM_ERRORS = {
  invalid_cursor: { status: 400, title: "Bad Request", when: "The `cursor` query parameter is not a `nextCursor` this API returned for that list." },
  idempotency_key_in_flight: {
    status: 409,
    title: "Conflict",
    when: "A request with the same Idempotency-Key is still being processed; retry shortly to get its answer.",
  },
  validation_failed: {
    status: 422,
    title: "Unprocessable Content",
    when: "Well-formed JSON that breaks a rule of the operation's schema or of the resource; `errors` names each field.",
  },
  idempotency_key_reused: { status: 422, title: "Unprocessable Content", when: "The Idempotency-Key was used within 24 h with another request body." },
  internal_error: { status: 500, title: "Internal Server Error", when: "A fault of the service (never bad input); it is logged with the request id." },
  upstream_unavailable: { status: 503, title: "Service Unavailable", when: "A backing service did not answer in time; retry after Retry-After." },
  upstream_failed: { status: 503, title: "Service Unavailable", when: "A backing service failed to answer; retry after Retry-After." },
  database_unavailable: {
    status: 503,
    title: "Service Unavailable",
    when: "The service's database cannot be reached (restart, fail-over); retry after Retry-After.",
  },
} as const satisfies Record<string, ErrorSpec>;

export type PlatformErrorCode = keyof typeof PLATFORM_ERRORS;

/** An error of this package's own codes (services use `appError` of the catalog). */
export function platformError(code: PlatformErrorCode, detail: string, options?: AppErrorOptions): AppError {
  return new AppError(code, PLATFORM_ERRORS[code], detail, options);
}

/** Connection-level SQLSTATEs: class 08 (connection exception) and the shutdown / startup ones. */
const DATABASE_UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const DATABASE_UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** What node-postgres and its pool throw when a connection ends, times out or is unusable. */
const DATABASE_UNAVAILABLE_MESSAGE = /^Connection terminated|connection timeout|timeout exceeded when trying to connect|is not queryable|Connection ended/i;

/** Is `error` the database being out of reach (rather than a statement that failed)? */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (code.startsWith("08") || DATABASE_UNAVAILABLE_SQLSTATES.has(code) || DATABASE_UNAVAILABLE_ERRNOS.has(code))) return true;
  // A failed connect to several addresses (localhost: ::1 and 127.0.0.1).
  if (error instanceof AggregateError) return error.errors.some(isDatabaseUnavailable);
  return typeof message === "string" && DATABASE_UNAVAILABLE_MESSAGE.test(message);
}

const GRPC_BY_HTTP: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
  405: GrpcStatus.UNIMPLEMENTED,
  409: GrpcStatus.FAILED_PRECONDITION,
  413: GrpcStatus.INVALID_ARGUMENT,
  415: GrpcStatus.INVALID_ARGUMENT,
  422: GrpcStatus.INVALID_ARGUMENT,
  429: GrpcStatus.RESOURCE_EXHAUSTED,
  503: GrpcStatus.UNAVAILABLE,
};

export function grpcStatusOf(error: AppError): GrpcStatus {
  return GRPC_BY_HTTP[error.status] ?? GrpcStatus.INTERNAL;
}

/** Statuses a problem may carry across a service boundary; anything else is the callee's fault. */
const CLIENT_OR_AVAILABILITY = new Set(Object.keys(GRPC_BY_HTTP).map(Number));

/** Rebuilds an AppError from a problem that crossed a service boundary (code, status and title as sent). */
export function errorFromProblem(problem: ProblemDetails): AppError {
  if (!CLIENT_OR_AVAILABILITY.has(problem.status)) return platformError("internal_error", problem.detail);
  return new AppError(problem.code, { status: problem.status, title: problem.title }, problem.detail, { errors: problem.errors });
}

/** Anything thrown that is not an AppError is a fault of the service, unless the database is away. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return isDatabaseUnavailable(error)
    ? platformError("database_unavailable", "The database is not reachable at the moment; try again shortly.", { cause: error })
    : platformError("internal_error", "An internal error occurred.", { cause: error });
}
