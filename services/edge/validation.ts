// Request validation with zod; failures become 422 with one entry per field.
import type { z } from "zod";
import { appError } from "@waybill/contracts/errors/catalog.js";

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined) {
    // No body is fine where every field is optional: it means "{}".
    const empty = schema.safeParse({});
    if (empty.success) return empty.data;
    throw appError("validation_failed", "A JSON body is required.", { errors: [{ path: "", message: "required" }] });
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    throw appError("validation_failed", "The request body is not valid.", {
      errors: result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    });
  }
  return result.data;
}

export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query);
  if (!result.success) {
    throw Object.assign(appError("invalid_query", "A query parameter is malformed."), {
      errors: result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    });
  }
  return result.data;
}
