// GET /docs in a real browser (headless Chromium driven by playwright-core): the API reference
// renders the operations from /v1/openapi.json, every request the page makes goes to the edge
// itself, and the Content-Security-Policy refuses nothing the page needs.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "./support/http.js";
import { ROOT } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = path.join(ROOT, "test-artifacts/screenshots/docs.png");

let stack: Stack;
let browser: Browser;
beforeAll(async () => {
  stack = await startStack();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("/docs", () => {
  it("renders the operation list from the OpenAPI document with no request leaving the edge", async () => {
    const origin = stack.edge.url;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const requested: string[] = [];
    const problems: string[] = [];
    page.on("request", (req) => requested.push(req.url()));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    const answer = await page.goto(`${origin}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()["content-security-policy"]).toContain("default-src 'self'");
    // Operation summaries come from the route specs, through /v1/openapi.json.
    await page.getByText("Create an order", { exact: true }).first().waitFor({ timeout: 30_000 });
    await page.getByText("Exchange email and password for a session JWT").first().waitFor();
    expect(await page.locator(".opblock").count()).toBeGreaterThan(40);
    // The webhooks section (OpenAPI 3.1) is rendered too.
    await page.getByText("order.status.changed").first().waitFor();

    // Opening an operation renders its parameters, body schema and answers (more of Swagger UI's
    // own rendering, also under the CSP).
    await page.locator("#operations-orders-postOrders .opblock-summary").click();
    await page.locator("#operations-orders-postOrders").getByText("Idempotency-Key").first().waitFor();
    await page.locator("#operations-orders-postOrders").getByText("validation_failed").first().waitFor();
    // The examples are real-looking values, not generated gibberish.
    await page.locator("#operations-orders-postOrders").getByText('"ORD-1042"').first().waitFor();
    await page.locator("#operations-orders-postOrders .opblock-summary").click();
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });

    const foreign = requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"));
    expect(foreign).toEqual([]);
    expect(requested).toEqual(expect.arrayContaining([`${origin}/docs`, `${origin}/v1/openapi.json`, `${origin}/docs/assets/swagger-ui-bundle.js`]));
    // CSP violations (inline styles or scripts, other origins) show up here as console errors.
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it("serves only the files it names under /docs/assets/, and needs no credential", async () => {
    const base = stack.edge.url;
    const bundle = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toContain("javascript");
    await bundle.arrayBuffer();
    for (const name of ["package.json", "..%2Fpackage.json", "index.html", "swagger-ui-bundle.js.map"]) {
      expect((await request(`${base}/docs/assets/${name}`)).status, name).toBe(404);
    }
  });
});
