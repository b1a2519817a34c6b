// Serves the built console (a static single-page application) at `/`, same origin as /v1, so its
// session JWT never crosses origins. Hashed assets are cached for good; every page carries a strict
// Content-Security-Policy; unknown non-API paths answer index.html so client-side routes survive a
// reload. The edge reads only the built folder, never the console's sources.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Middleware } from "koa";
import { chooseEncoding, compressible, createCompressedCache } from "./console-compression.js";
import { pagePolicy } from "./page-policy.js";

/** Paths the console never answers: the API, its reference and the ops endpoints (/metrics stays a 404 here). */
const NOT_CONSOLE = /^\/(?:v1|docs|metrics|healthz|readyz)(?:\/|$)/;
/** Vite puts content-hashed files here; their names change whenever their content does. */
const HASHED_ASSETS = "/assets/";
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";
/** index.html, the service worker and the manifest must be revalidated, or an update never lands. */
export const REVALIDATE_CACHE = "no-cache";

/** The installed app also loads its manifest and its service worker from this origin. */
export const CONSOLE_CSP = pagePolicy({ formAction: "'self'", more: ["manifest-src 'self'", "worker-src 'self'"] });

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONSOLE_CSP,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
};

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webmanifest": "application/manifest+json",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".woff2": "font/woff2",
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Waybill console not built</title></head>
<body><h1>The console has not been built</h1>
<p>The API answers at <a href="/v1/openapi.json">/v1</a>. To serve the console, run
<code>npm run build -w @waybill/console</code> (or <code>npm ci</code>, which builds it) and reload.</p>
</body></html>
`;

async function fileIn(root: string, urlPath: string): Promise<{ file: string; size: number; mtimeMs: number } | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const file = path.resolve(root, `.${path.posix.normalize(decoded)}`);
  // Refuses anything that resolves outside the folder (../, encoded or not).
  if (file !== root && !file.startsWith(root + path.sep)) return undefined;
  const info = await stat(file).catch(() => undefined);
  return info?.isFile() ? { file, size: info.size, mtimeMs: info.mtimeMs } : undefined;
}

export function serveConsole(consoleDir: string): Middleware {
  const root = path.resolve(consoleDir);
  const index = path.join(root, "index.html");
  const compressed = createCompressedCache();
  return async (ctx, next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || NOT_CONSOLE.test(ctx.path)) return next();
    const indexInfo = await stat(index).catch(() => undefined);
    if (!indexInfo?.isFile()) {
      ctx.status = 503;
      ctx.set("Retry-After", "60");
      ctx.set("Cache-Control", "no-store");
      ctx.set(SECURITY_HEADERS);
      ctx.type = "text/html; charset=utf-8";
      ctx.body = NOT_BUILT_PAGE;
      return;
    }
    const found = ctx.path === "/" ? undefined : await fileIn(root, ctx.path);
    if (!found && (ctx.path.startsWith(HASHED_ASSETS) || path.posix.extname(ctx.path) !== "")) {
      // A missing file is a 404, never index.html: a stale page asking for an old chunk must fail
      // loudly instead of parsing HTML as JavaScript.
      return next();
    }
    const { file, size, mtimeMs } = found ?? { file: index, size: indexInfo.size, mtimeMs: indexInfo.mtimeMs };
    ctx.status = 200;
    ctx.set(SECURITY_HEADERS);
    ctx.set("Cache-Control", found && ctx.path.startsWith(HASHED_ASSETS) ? IMMUTABLE_CACHE : REVALIDATE_CACHE);
    ctx.type = CONTENT_TYPES[path.extname(file)] ?? "application/octet-stream";
    const encoding = compressible(path.extname(file), size) ? chooseEncoding(ctx.get("accept-encoding")) : undefined;
    if (encoding) {
      const body = await compressed(file, `${mtimeMs}-${size}`, encoding);
      ctx.set("Content-Encoding", encoding);
      ctx.vary("Accept-Encoding");
      ctx.length = body.length;
      ctx.body = ctx.method === "HEAD" ? null : body;
      return;
    }
    if (compressible(path.extname(file), size)) ctx.vary("Accept-Encoding");
    ctx.length = size;
    ctx.body = ctx.method === "HEAD" ? null : createReadStream(file);
  };
}
