import { status as GrpcStatus } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import {
  AppError,
  BadRequestError,
  ConflictError,
  DatabaseUnavailableError,
  errorFromProblem,
  ForbiddenError,
  grpcStatusOf,
  isDatabaseUnavailable,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  toAppError,
  UnauthenticatedError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from "./errors.js";

const CASES = [
  { error: new BadRequestError("invalid_json", "Body is not JSON."), status: 400, title: "Bad Request", grpc: GrpcStatus.INVALID_ARGUMENT },
  { error: new UnauthenticatedError("invalid_token", "Unknown token."), status: 401, title: "Unauthorized", grpc: GrpcStatus.UNAUTHENTICATED },
  { error: new ForbiddenError("token_type_forbidden", "No."), status: 403, title: "Forbidden", grpc: GrpcStatus.PERMISSION_DENIED },
  { error: new NotFoundError("order_not_found", "No such order."), status: 404, title: "Not Found", grpc: GrpcStatus.NOT_FOUND },
  { error: new ConflictError("invalid_transition", "Not allowed."), status: 409, title: "Conflict", grpc: GrpcStatus.FAILED_PRECONDITION },
  { error: new PayloadTooLargeError("body_too_large", "Too big."), status: 413, title: "Payload Too Large", grpc: GrpcStatus.INVALID_ARGUMENT },
  {
    error: new UnsupportedMediaTypeError("unsupported_media_type", "JSON only."),
    status: 415,
    title: "Unsupported Media Type",
    grpc: GrpcStatus.INVALID_ARGUMENT,
  },
  { error: new ValidationError("Bad body."), status: 422, title: "Unprocessable Content", grpc: GrpcStatus.INVALID_ARGUMENT },
  { error: new RateLimitedError("rate_limited", "Slow down."), status: 429, title: "Too Many Requests", grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  { error: new UnavailableError("unavailable", "Later."), status: 503, title: "Service Unavailable", grpc: GrpcStatus.UNAVAILABLE },
  { error: new DatabaseUnavailableError(), status: 503, title: "Service Unavailable", grpc: GrpcStatus.UNAVAILABLE },
  { error: new InternalError(), status: 500, title: "Internal Server Error", grpc: GrpcStatus.INTERNAL },
];

describe("error classes", () => {
  it.each(CASES)("$error.name has status $status and a problem shape", ({ error, status, title, grpc }) => {
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(Error);
    expect(error.status).toBe(status);
    expect(grpcStatusOf(error)).toBe(grpc);
    expect(error.toProblem()).toEqual({
      type: `https://waybill.dev/problems/${error.code}`,
      title,
      status,
      detail: error.message,
      code: error.code,
    });
  });

  it("includes errors only when there are some", () => {
    const fields = [{ path: "currency", message: "unknown ISO 4217 currency code" }];
    expect(new ValidationError("Bad body.", fields).toProblem().errors).toEqual(fields);
    expect(new ValidationError("Bad body.", []).toProblem()).not.toHaveProperty("errors");
    expect(new NotFoundError("x", "y").toProblem()).not.toHaveProperty("errors");
  });

  it("defaults ValidationError's code to validation_failed and allows another", () => {
    expect(new ValidationError("Bad.").code).toBe("validation_failed");
    expect(new ValidationError("Reused key.", undefined, "idempotency_key_reused").code).toBe("idempotency_key_reused");
  });

  it("asks for Bearer credentials on 401", () => {
    expect(new UnauthenticatedError("missing_credentials", "Send a token.").headers["WWW-Authenticate"]).toMatch(/^Bearer/);
  });
});

describe("errorFromProblem", () => {
  it.each(CASES.filter((c) => c.status !== 500))("round-trips $error.name", ({ error }) => {
    const rebuilt = errorFromProblem(error.toProblem());
    expect(rebuilt.constructor).toBe(error.constructor);
    expect(rebuilt.code).toBe(error.code);
    expect(rebuilt.message).toBe(error.message);
    expect(rebuilt.toProblem()).toEqual(error.toProblem());
  });

  it("keeps field errors and a custom validation code", () => {
    const original = new ValidationError("Bad body.", [{ path: "orderItems.0.price", message: "at most 2 decimal places" }], "amount_invalid");
    const rebuilt = errorFromProblem(original.toProblem());
    expect(rebuilt).toBeInstanceOf(ValidationError);
    expect(rebuilt.code).toBe("amount_invalid");
    expect(rebuilt.errors).toEqual(original.errors);
  });

  it("turns unknown statuses into an internal error", () => {
    const rebuilt = errorFromProblem({ type: "about:blank", title: "Teapot", status: 418, detail: "short and stout", code: "teapot" });
    expect(rebuilt).toBeInstanceOf(InternalError);
    expect(rebuilt.status).toBe(500);
    expect(grpcStatusOf(rebuilt)).toBe(GrpcStatus.INTERNAL);
  });
});

describe("toAppError", () => {
  it("passes AppErrors through unchanged", () => {
    const error = new ConflictError("insufficient_stock", "Not enough stock.");
    expect(toAppError(error)).toBe(error);
  });

  it.each([new Error("password=hunter2 at db.internal"), "a string", undefined, { message: "secret" }])(
    "turns %s into a 500 internal_error without leaking its message",
    (thrown) => {
      const error = toAppError(thrown);
      expect(error.status).toBe(500);
      expect(error.code).toBe("internal_error");
      const problem = JSON.stringify(error.toProblem());
      expect(problem).not.toContain("hunter2");
      expect(problem).not.toContain("secret");
      expect(problem).not.toContain("a string");
    },
  );
});

describe("the database out of reach", () => {
  // What node-postgres and its pool throw while the server restarts, fails over or refuses.
  const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
  const UNAVAILABLE = [
    pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
    pgError("read ECONNRESET", "ECONNRESET"),
    pgError("terminating connection due to administrator command", "57P01"),
    pgError("the database system is starting up", "57P03"),
    pgError("the database system is in recovery mode", "57P03"),
    pgError("server closed the connection unexpectedly", "08006"),
    pgError("Connection terminated unexpectedly"),
    pgError("Connection terminated"),
    pgError("Connection terminated due to connection timeout"),
    pgError("timeout exceeded when trying to connect"),
    pgError("Client has encountered a connection error and is not queryable"),
    new AggregateError([pgError("connect ECONNREFUSED ::1:5432", "ECONNREFUSED"), pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")]),
  ];

  it.each(UNAVAILABLE)("maps %s to 503 database_unavailable with Retry-After", (thrown) => {
    expect(isDatabaseUnavailable(thrown)).toBe(true);
    const error = toAppError(thrown);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error.status).toBe(503);
    expect(error.code).toBe("database_unavailable");
    expect(Number(error.headers["Retry-After"])).toBeGreaterThan(0);
    expect(grpcStatusOf(error)).toBe(GrpcStatus.UNAVAILABLE);
  });

  it.each([
    pgError("duplicate key value violates unique constraint", "23505"),
    pgError("syntax error at or near", "42601"),
    pgError("canceling statement due to statement timeout", "57014"),
    new Error("boom"),
  ])("leaves %s a fault of the service", (thrown) => {
    expect(isDatabaseUnavailable(thrown)).toBe(false);
    expect(toAppError(thrown).code).toBe("internal_error");
  });

  it("crosses a service boundary as the same class, with its Retry-After", () => {
    const rebuilt = errorFromProblem(new DatabaseUnavailableError().toProblem());
    expect(rebuilt).toBeInstanceOf(DatabaseUnavailableError);
    expect(rebuilt.headers["Retry-After"]).toBe(new DatabaseUnavailableError().headers["Retry-After"]);
  });
});
