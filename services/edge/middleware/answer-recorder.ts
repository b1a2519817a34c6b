// Test runs only (ANSWER_LOG_FILE): every /v1 answer is appended to a JSONL file as (method, route,
// status, content type, body), and the suite's teardown validates each against the OpenAPI
// document (test/support/contract-check.ts). Off in production: nothing is mounted.
import { appendFileSync } from "node:fs";
import type { Middleware } from "koa";

/** Bodies larger than this are recorded without the body (the status and type are still checked). */
const MAX_RECORDED_BODY_BYTES = 256 * 1024;

export interface RecordedAnswer {
  method: string;
  /** The OpenAPI path of the route that answered ("/orders/{id}"), null when no route matched. */
  route: string | null;
  path: string;
  status: number;
  contentType: string;
  /** The parsed JSON body; undefined when there is none, it is not JSON, or it is too large. */
  body?: unknown;
}

export function answerRecorder(file: string): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      if (ctx.path.startsWith("/v1/") && ctx.path !== "/v1/openapi.json") {
        const route = routeOf(ctx as { matched?: MatchedLayer[]; method: string });
        const answer: RecordedAnswer = {
          method: ctx.method,
          route: route === undefined ? null : route.replace(/^\/v1/, "").replace(/:([A-Za-z0-9_]+)/g, "{$1}"),
          path: ctx.path,
          status: ctx.status,
          contentType: String(ctx.response.get("Content-Type") ?? ""),
          body: recordedBody(ctx.body),
        };
        appendFileSync(file, `${JSON.stringify(answer)}\n`);
      }
    }
  };
}

interface MatchedLayer {
  path: string | RegExp;
  methods: string[];
}

/**
 * The path of the route for this method among the layers that matched the path (koa-router's
 * `matched`), else of any route on that path; `_matchedRoute` names a `use` layer when a
 * router middleware (authentication, body parsing) answered before the route ran.
 */
function routeOf(ctx: { matched?: MatchedLayer[]; method: string }): string | undefined {
  const routes = (ctx.matched ?? []).filter((layer) => layer.methods.length > 0 && typeof layer.path === "string");
  const method = ctx.method === "HEAD" ? "GET" : ctx.method;
  const candidates = [...routes].reverse().filter((candidate) => candidate.methods.includes(method));
  // As in OpenAPI, a concrete path is the one that answers before a templated one that also
  // matches (/events/stream, mounted before /events/:id): the most literal segments win.
  const layer = candidates.reduce<MatchedLayer | undefined>(
    (best, candidate) => (best && literalSegments(best) >= literalSegments(candidate) ? best : candidate),
    undefined,
  );
  return (layer ?? routes.at(-1))?.path as string | undefined;
}

function literalSegments(layer: MatchedLayer): number {
  return (layer.path as string).split("/").filter((segment) => segment !== "" && !segment.startsWith(":")).length;
}

function recordedBody(body: unknown): unknown {
  if (body === undefined || body === null) return undefined;
  if (Buffer.isBuffer(body)) return body.length > MAX_RECORDED_BODY_BYTES ? undefined : parseJson(body.toString("utf8"));
  if (typeof body === "string") return body.length > MAX_RECORDED_BODY_BYTES ? undefined : parseJson(body);
  if (typeof (body as { pipe?: unknown }).pipe === "function") return undefined; // a stream (SSE)
  return body;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
