// One error hierarchy for every service. Each error has a stable `code` that clients can
// branch on; the HTTP status and gRPC status are derived from the class only at the edges.
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

export class AppError extends Error {
  readonly status: number = 500;
  readonly title: string = "Internal Server Error";
  readonly code: string;
  readonly errors?: FieldError[];
  /** Extra response headers (Retry-After, WWW-Authenticate …). */
  readonly headers: Record<string, string> = {};

  constructor(code: string, detail: string, errors?: FieldError[]) {
    super(detail);
    this.name = new.target.name;
    this.code = code;
    this.errors = errors;
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

export class BadRequestError extends AppError {
  override readonly status = 400;
  override readonly title = "Bad Request";
}

export class UnauthenticatedError extends AppError {
  override readonly status = 401;
  override readonly title = "Unauthorized";
  override readonly headers = { "WWW-Authenticate": 'Bearer realm="waybill"' };
}

export class ForbiddenError extends AppError {
  override readonly status = 403;
  override readonly title = "Forbidden";
}

export class NotFoundError extends AppError {
  override readonly status = 404;
  override readonly title = "Not Found";
}

export class ConflictError extends AppError {
  override readonly status = 409;
  override readonly title = "Conflict";
}

export class MethodNotAllowedError extends AppError {
  override readonly status = 405;
  override readonly title = "Method Not Allowed";
  override readonly headers: Record<string, string>;
  /** `allow`: the methods the path does answer, for the Allow header (RFC 9110 requires it on 405). */
  constructor(detail: string, allow: string) {
    super("method_not_allowed", detail);
    this.headers = { Allow: allow };
  }
}

export class NotImplementedError extends AppError {
  override readonly status = 501;
  override readonly title = "Not Implemented";
}

export class PayloadTooLargeError extends AppError {
  override readonly status = 413;
  override readonly title = "Payload Too Large";
}

export class UnsupportedMediaTypeError extends AppError {
  override readonly status = 415;
  override readonly title = "Unsupported Media Type";
}

export class ValidationError extends AppError {
  override readonly status = 422;
  override readonly title = "Unprocessable Content";
  constructor(detail: string, errors?: FieldError[], code = "validation_failed") {
    super(code, detail, errors);
  }
}

export class RateLimitedError extends AppError {
  override readonly status = 429;
  override readonly title = "Too Many Requests";
}

/** Seconds a client is told to wait (Retry-After) before trying a request answered 503 again. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

export class UnavailableError extends AppError {
  override readonly status = 503;
  override readonly title = "Service Unavailable";
  override readonly headers: Record<string, string> = { "Retry-After": String(UNAVAILABLE_RETRY_AFTER_SECONDS) };
}

/** The service's database cannot be reached (restarting, failing over, refusing connections). */
export class DatabaseUnavailableError extends UnavailableError {
  constructor(detail = "The database is not reachable at the moment; try again shortly.") {
    super("database_unavailable", detail);
  }
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

export class InternalError extends AppError {
  constructor(detail = "An internal error occurred.") {
    super("internal_error", detail);
  }
}

const GRPC_BY_HTTP: Record<number, GrpcStatus> = {
  400: GrpcStatus.INVALID_ARGUMENT,
  401: GrpcStatus.UNAUTHENTICATED,
  403: GrpcStatus.PERMISSION_DENIED,
  404: GrpcStatus.NOT_FOUND,
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

const CLASS_BY_HTTP: Record<number, new (code: string, detail: string, errors?: FieldError[]) => AppError> = {
  400: BadRequestError,
  401: UnauthenticatedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitedError,
  503: UnavailableError,
};

/** Rebuilds an AppError from a problem that crossed a service boundary. */
export function errorFromProblem(problem: ProblemDetails): AppError {
  if (problem.status === 503 && problem.code === "database_unavailable") return new DatabaseUnavailableError(problem.detail);
  if (problem.status === 422) return new ValidationError(problem.detail, problem.errors, problem.code);
  const Cls = CLASS_BY_HTTP[problem.status];
  if (!Cls) return new InternalError(problem.detail);
  return new Cls(problem.code, problem.detail, problem.errors);
}

/** Anything thrown that is not an AppError is a fault of the service, unless the database is away. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return isDatabaseUnavailable(error) ? new DatabaseUnavailableError() : new InternalError();
}
