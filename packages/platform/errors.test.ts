import { status as GrpcStatus } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { AppError, errorFromProblem, grpcStatusOf, isDatabaseUnavailable, platformError, toAppError } from "./errors.js";

const coded = (code: string, status: number, title: string, detail: string) => new AppError(code, { status, title }, detail);

const CASES = [
  { error: coded("invalid_json", 400, "Bad Request", "Body is not JSON."), grpc: GrpcStatus.INVALID_ARGUMENT },
  { error: coded("invalid_token", 401, "Unauthorized", "Unknown token."), grpc: GrpcStatus.UNAUTHENTICATED },
  { error: coded("token_type_forbidden", 403, "Forbidden", "No."), grpc: GrpcStatus.PERMISSION_DENIED },
  { error: coded("order_not_found", 404, "Not Found", "No such order."), grpc: GrpcStatus.NOT_FOUND },
  { error: coded("invalid_status_transition", 409, "Conflict", "Not allowed."), grpc: GrpcStatus.FAILED_PRECONDITION },
  { error: coded("payload_too_large", 413, "Payload Too Large", "Too big."), grpc: GrpcStatus.INVALID_ARGUMENT },
  { error: coded("unsupported_media_type", 415, "Unsupported Media Type", "JSON only."), grpc: GrpcStatus.INVALID_ARGUMENT },
  { error: platformError("validation_failed", "Bad body."), grpc: GrpcStatus.INVALID_ARGUMENT },
  { error: coded("rate_limited", 429, "Too Many Requests", "Slow down."), grpc: GrpcStatus.RESOURCE_EXHAUSTED },
  { error: platformError("upstream_unavailable", "Later."), grpc: GrpcStatus.UNAVAILABLE },
  { error: platformError("database_unavailable", "Later."), grpc: GrpcStatus.UNAVAILABLE },
  { error: platformError("internal_error", "Broken."), grpc: GrpcStatus.INTERNAL },
];

describe("the coded error", () => {
  it.each(CASES)("$error.code has its status and a problem shape", ({ error, grpc }) => {
    expect(error).toBeInstanceOf(Error);
    expect(grpcStatusOf(error)).toBe(grpc);
    expect(error.toProblem()).toEqual({
      type: `https://waybill.dev/problems/${error.code}`,
      title: error.title,
      status: error.status,
      detail: error.message,
      code: error.code,
    });
  });

  it("takes the platform's codes' status and title from PLATFORM_ERRORS", () => {
    expect(platformError("validation_failed", "Bad.")).toMatchObject({ status: 422, title: "Unprocessable Content" });
    expect(platformError("invalid_cursor", "Bad.")).toMatchObject({ status: 400, title: "Bad Request" });
  });

  it("includes errors only when there are some", () => {
    const fields = [{ path: "currency", message: "unknown ISO 4217 currency code" }];
    expect(platformError("validation_failed", "Bad body.", { errors: fields }).toProblem().errors).toEqual(fields);
    expect(platformError("validation_failed", "Bad body.", { errors: [] }).toProblem()).not.toHaveProperty("errors");
    expect(coded("not_found", 404, "Not Found", "y").toProblem()).not.toHaveProperty("errors");
  });

  it("asks for Bearer credentials on 401 and says when to retry a 503", () => {
    expect(coded("missing_credentials", 401, "Unauthorized", "Send a token.").headers["WWW-Authenticate"]).toMatch(/^Bearer/);
    expect(Number(platformError("upstream_failed", "Later.").headers["Retry-After"])).toBeGreaterThan(0);
  });

  it("keeps the error it wraps as cause, out of the problem", () => {
    const cause = new Error("password=hunter2");
    const error = platformError("internal_error", "Broken.", { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error.toProblem())).not.toContain("hunter2");
  });
});

describe("errorFromProblem", () => {
  it.each(CASES.filter((c) => c.error.status !== 500))("round-trips $error.code", ({ error }) => {
    const rebuilt = errorFromProblem(error.toProblem());
    expect(rebuilt).toBeInstanceOf(AppError);
    expect(rebuilt.code).toBe(error.code);
    expect(rebuilt.message).toBe(error.message);
    expect(rebuilt.headers).toEqual(error.headers);
    expect(rebuilt.toProblem()).toEqual(error.toProblem());
  });

  it("keeps field errors and a specific validation code", () => {
    const original = coded("amount_out_of_range", 422, "Unprocessable Content", "Bad body.");
    const withFields = new AppError(original.code, original, original.message, { errors: [{ path: "orderItems.0.price", message: "too large" }] });
    const rebuilt = errorFromProblem(withFields.toProblem());
    expect(rebuilt.code).toBe("amount_out_of_range");
    expect(rebuilt.status).toBe(422);
    expect(rebuilt.errors).toEqual(withFields.errors);
  });

  it("turns unknown statuses into an internal error", () => {
    const rebuilt = errorFromProblem({ type: "about:blank", title: "Teapot", status: 418, detail: "short and stout", code: "teapot" });
    expect(rebuilt.code).toBe("internal_error");
    expect(rebuilt.status).toBe(500);
    expect(grpcStatusOf(rebuilt)).toBe(GrpcStatus.INTERNAL);
  });
});

describe("toAppError", () => {
  it("passes AppErrors through unchanged", () => {
    const error = coded("insufficient_stock", 409, "Conflict", "Not enough stock.");
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
    expect(error.cause).toBe(thrown);
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

  it("crosses a service boundary with its code and Retry-After", () => {
    const original = toAppError(pgError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"));
    const rebuilt = errorFromProblem(original.toProblem());
    expect(rebuilt.code).toBe("database_unavailable");
    expect(rebuilt.headers["Retry-After"]).toBe(original.headers["Retry-After"]);
  });
});
