// How an endpoint is declared: one spec (method, path, capability, schemas) that both mounts the
// Koa handler and describes the endpoint in the OpenAPI document. Handlers get parsed input and
// return a Reply; they never touch validation, permissions or idempotency headers themselves.
import { createHash } from "node:crypto";
import type { Router, RouterContext } from "@koa/router";
import type { z } from "zod";
import type { ErrorCode } from "@waybill/contracts/errors/catalog.js";
import type { Principal } from "@waybill/contracts/identity-client/token-resolver.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { requires, type Capability } from "./permissions.js";
import { parseBody, parseQuery } from "./validation.js";

export type Method = "get" | "post" | "put" | "delete";

export interface RouteSpec<B extends z.ZodType | undefined = z.ZodType | undefined, Q extends z.ZodType | undefined = z.ZodType | undefined> {
  method: Method;
  /** Koa path relative to /v1, with :params (e.g. "/orders/:id"). */
  path: string;
  summary: string;
  /** Longer prose for the OpenAPI operation, where the summary cannot say everything. */
  description?: string;
  tag: string;
  /** What the caller must be allowed; "public" endpoints need no credential. */
  capability: Capability | "public";
  body?: B;
  query?: Q;
  /** Schema of the success answer's body (none for 204). */
  response?: z.ZodType;
  /** Success status; 200 unless stated. */
  status?: 200 | 201 | 202 | 204;
  /** Creating POSTs accept Idempotency-Key (API.md conventions). */
  idempotent?: boolean;
  /** Media type of the success answer when it is not JSON (the response schema is then that of one item). */
  produces?: "text/event-stream";
  /** Request headers the endpoint reads, for the OpenAPI document. */
  headerParams?: { name: string; description: string; pattern?: string }[];
  /** A path parameter naming a credential: the caller acting on its own needs no capability. */
  ownCredentialParam?: string;
  /** The 409 codes this endpoint can answer, for the OpenAPI document (none when absent). */
  conflicts?: ErrorCode[];
  /**
   * Other codes particular to this endpoint (a 422 such as unknown_product, a 404 of a resource
   * its path does not name); those every endpoint of its kind answers are added by openapi-problems.ts.
   */
  errors?: ErrorCode[];
}

export interface IdempotencyInput {
  key: string;
  requestHash: string;
}

export interface RouteInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  /** Undefined only on public endpoints. */
  principal: Principal;
  /** Present when the spec is idempotent and the client sent Idempotency-Key. */
  idempotency?: IdempotencyInput;
}

export interface Reply {
  body?: unknown;
  /** The body already serialised as JSON (a page a service wrote as JSON), sent as it is. */
  json?: Buffer;
  /** Overrides the spec's status. */
  status?: number;
  headers?: Record<string, string>;
  /** The answer is a replay of an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
}

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface Api {
  router: Router;
  routes: RouteSpec[];
}

/** Idempotency-Key: 1 to 255 visible ASCII characters (also the OpenAPI pattern). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function route<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(
  api: Api,
  spec: RouteSpec<B, Q>,
  handler: (input: RouteInput<Infer<B>, Infer<Q>>, ctx: RouterContext) => Promise<Reply>,
): void {
  api.routes.push(spec);
  const guard = spec.capability === "public" ? (_ctx: unknown, next: () => Promise<unknown>) => next() : requires(spec.capability, spec.ownCredentialParam);
  api.router[spec.method](spec.path, guard, async (ctx) => {
    // No stored id contains NUL (PostgreSQL text cannot), so such a path names nothing.
    if (Object.values(ctx.params).some((value) => value.includes("\0"))) throw appError("not_found", "No such resource.");
    if (ctx.querystring.toLowerCase().includes("%00")) throw appError("invalid_query", "Query parameters may not contain NUL.");
    const body = (spec.body ? parseBody(spec.body, ctx.request.body) : undefined) as Infer<B>;
    const query = (spec.query ? parseQuery(spec.query, ctx.query) : undefined) as Infer<Q>;
    const idempotency = spec.idempotent ? idempotencyOf(ctx, spec) : undefined;
    const reply = await handler({ body, query, params: ctx.params, principal: ctx.state.principal!, idempotency }, ctx);
    ctx.status = reply.status ?? spec.status ?? 200;
    for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
    if (reply.replayed) ctx.set("Idempotent-Replayed", "true");
    if (reply.json !== undefined) {
      ctx.type = "application/json";
      ctx.body = reply.json;
    } else if (reply.body !== undefined) ctx.body = reply.body;
  });
}

function idempotencyOf(ctx: RouterContext, spec: RouteSpec): IdempotencyInput | undefined {
  // An empty header is a malformed key (400), not none: replaying safely was asked for.
  if (ctx.req.headers["idempotency-key"] === undefined) return undefined;
  const key = ctx.get("idempotency-key");
  if (!IDEMPOTENCY_KEY.test(key)) {
    throw appError("invalid_idempotency_key", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  // The same key with another body is refused; the hash covers what the request asks for, so
  // the same object with its keys in another order (another client, another serializer) is the same.
  const requestHash = createHash("sha256")
    .update(`${spec.method} ${ctx.path}\n${canonicalJson(ctx.request.body ?? null)}`)
    .digest("hex");
  return { key, requestHash };
}

/** JSON with every object's keys sorted, recursively; arrays keep their order (it means something). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
