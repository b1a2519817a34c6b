// Request bodies: JSON only (415 otherwise), not content-encoded (415), at most the configured
// size (413), parsed strictly (400 on invalid JSON). The raw bytes are kept for handlers that need them.
import contentType from "content-type";
import type { Middleware } from "koa";
import getRawBody from "raw-body";
import { appError } from "@waybill/contracts/errors/catalog.js";

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

declare module "koa" {
  interface Request {
    body?: unknown;
  }
}

export function jsonBody(limitBytes: number): Middleware {
  return async (ctx, next) => {
    if (!METHODS_WITH_BODY.has(ctx.method)) return next();
    const length = ctx.get("content-length");
    const chunked = ctx.get("transfer-encoding") !== "";
    if (!chunked && (length === "" || length === "0")) {
      ctx.request.body = undefined;
      return next();
    }
    if (Number(length) > limitBytes) {
      throw appError("payload_too_large", `The body is larger than ${limitBytes} bytes.`);
    }
    if (!isJson(ctx.get("content-type"))) {
      throw appError("unsupported_media_type", "Send the body as application/json.");
    }
    // A compressed body read as text would fail validation with a misleading 422. Bodies are small
    // JSON: refuse any coding rather than inflate (RFC 9110 §15.5.16), and say what is accepted.
    if (!isIdentityEncoding(ctx.get("content-encoding"))) {
      ctx.set("Accept-Encoding", "identity");
      throw appError("unsupported_content_encoding", "Send the body without Content-Encoding (identity); compressed bodies are not accepted.");
    }
    let raw: string;
    try {
      raw = await getRawBody(ctx.req, { limit: limitBytes, encoding: "utf8", length: length || undefined });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === "entity.too.large") throw appError("payload_too_large", `The body is larger than ${limitBytes} bytes.`);
      throw appError("unreadable_body", "The request body could not be read.");
    }
    if (raw.trim() === "") {
      ctx.request.body = undefined;
      return next();
    }
    try {
      ctx.request.body = JSON.parse(raw);
    } catch (error) {
      throw appError("invalid_json", `The body is not valid JSON: ${(error as Error).message}`);
    }
    // PostgreSQL text cannot hold NUL; refuse it here once rather than fail deep inside a service.
    if (raw.includes("\\u0000")) {
      throw appError("invalid_character", "Strings may not contain the NUL character (\\u0000).", { errors: [{ path: "", message: "contains \\u0000" }] });
    }
    return next();
  };
}

/** No Content-Encoding, or only "identity" (codings are a comma list, case-insensitive). */
function isIdentityEncoding(header: string): boolean {
  return header
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .every((coding) => coding === "" || coding === "identity");
}

function isJson(header: string): boolean {
  if (!header) return false;
  try {
    const { type } = contentType.parse(header);
    return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
  } catch {
    return false;
  }
}
