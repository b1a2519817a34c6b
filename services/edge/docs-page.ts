// GET /docs: the API reference, rendered in the browser by Swagger UI from /v1/openapi.json. Every
// file comes from this server (the swagger-ui-dist package, and our own page and start script), so
// viewing it needs no other network; the Content-Security-Policy holds the page to that.
import { pagePolicy } from "./page-policy.js";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Middleware } from "koa";

export const DOCS_PATH = "/docs";
const ASSETS_PATH = `${DOCS_PATH}/assets/`;

/**
 * Scripts, styles, fonts, images and fetches only from this origin; nothing inline (Swagger UI
 * needs none: the browser test fails on any CSP violation, which Chromium reports as a console
 * error). data: images are Swagger UI's own icons.
 */
export const DOCS_CSP = pagePolicy({ formAction: "'none'" });

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Waybill API reference</title>
  <link rel="icon" type="image/png" href="${ASSETS_PATH}favicon-32x32.png">
  <link rel="stylesheet" href="${ASSETS_PATH}swagger-ui.css">
</head>
<body>
  <div id="api"></div>
  <script src="${ASSETS_PATH}swagger-ui-bundle.js"></script>
  <script src="${ASSETS_PATH}start.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise ask validator.swagger.io about the document.
const START_SCRIPT = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/v1/openapi.json",
    dom_id: "#api",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    docExpansion: "list",
  });
});
`;

const PACKAGE_FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

export function docsPage(): Middleware {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const cache = new Map<string, Buffer>();
  const asset = async (name: string) => {
    let body = cache.get(name);
    if (!body) {
      body = await readFile(path.join(packageDir, name));
      cache.set(name, body);
    }
    return body;
  };
  return async (ctx, next) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") return next();
    if (ctx.path === DOCS_PATH || ctx.path === `${DOCS_PATH}/`) {
      ctx.set("Content-Security-Policy", DOCS_CSP);
      ctx.type = "text/html; charset=utf-8";
      ctx.body = PAGE;
      return;
    }
    if (!ctx.path.startsWith(ASSETS_PATH)) return next();
    const name = ctx.path.slice(ASSETS_PATH.length);
    ctx.set("Content-Security-Policy", DOCS_CSP);
    ctx.set("X-Content-Type-Options", "nosniff");
    if (name === "start.js") {
      ctx.type = "text/javascript; charset=utf-8";
      ctx.body = START_SCRIPT;
      return;
    }
    const type = PACKAGE_FILES[name];
    if (!type) return next(); // 404 problem, like any unknown path
    ctx.set("Cache-Control", "public, max-age=86400");
    ctx.type = type;
    ctx.body = await asset(name);
  };
}
