// The console (web and mobile application) in a real browser against the real system: sign in,
// tokens, webhooks with a real receiver, orders changing under the API, the phone layout through
// `Menu`, accessibility of every screen (axe-core), screenshots, sign-out.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshot, seriousViolations } from "./support/browser.js";
import { ROOT } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";

const run = promisify(execFile);
const ADMIN = { email: "console-admin@example.com", password: "console-password-123" };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };

let stack: Stack;
let browser: Browser;
let receiver: http.Server;
let receiverUrl: string;
const received: string[] = [];

async function api<T>(method: string, pathname: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${stack.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, "clients/console/dist/index.html"))) await run("npm", ["run", "build", "-w", "@waybill/console"], { cwd: ROOT });
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push(String(req.headers["x-service-webhook-id"]));
      // A header and a body with markup: the console must show them as text.
      res.writeHead(200, { "content-type": "text/plain", "x-receiver": "console-test" }).end("<b>thanks</b>");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  stack = await startStack({
    extraEnv: { BOOTSTRAP_ADMIN_EMAIL: ADMIN.email, BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" },
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  receiver?.closeAllConnections();
  receiver?.close();
});

async function signedIn(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; cspErrors: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const cspErrors: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  await page.goto(stack.edge.url);
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Dashboard" }).waitFor();
  return { context, page, cspErrors };
}

async function go(page: Page, screen: string, phone = false) {
  if (phone) await page.getByRole("button", { name: "Menu" }).click();
  await page.getByRole("navigation", { name: "Screens" }).getByRole("link", { name: screen, exact: true }).click();
  await page.getByRole("heading", { name: screen, level: 1 }).waitFor();
}

describe("console", () => {
  it("is served at / with a strict Content-Security-Policy, and routes survive a reload", async () => {
    const page = await fetch(`${stack.edge.url}/orders`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('<div id="root">');
    const manifest = await (await fetch(`${stack.edge.url}/manifest.webmanifest`)).json();
    expect(manifest).toMatchObject({ display: "standalone", name: "Waybill console" });
    expect(manifest.icons.length).toBeGreaterThan(0);
    expect((await fetch(`${stack.edge.url}/sw.js`)).status).toBe(200);
    expect((await fetch(`${stack.edge.url}/v1/orders`)).status).toBe(401); // the API is not shadowed
    expect((await fetch(`${stack.edge.url}/assets/gone-1234.js`)).status).toBe(404); // never index.html for a missing chunk
    const outside = await fetch(`${stack.edge.url}/%2e%2e/%2e%2e/package.json`);
    expect(await outside.text()).not.toContain('"workspaces"'); // nothing outside the built folder
  });

  it("on a desktop: sign in, a token shown once, a webhook with its secret, a test delivery, an order changing, pause, every screen accessible, sign out", async () => {
    const { context, page, cspErrors } = await signedIn(DESKTOP);
    try {
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, "console/desktop", "dashboard");

      await go(page, "API tokens");
      await page.getByLabel("Token name").fill("console token");
      await page.getByRole("button", { name: "Create token" }).click();
      const value = await page.getByTestId("secret-value").textContent();
      expect(value).toMatch(/^api-[A-Za-z0-9_-]{20,}$/);
      await page.getByRole("cell", { name: "console token", exact: true }).waitFor();
      await screenshot(page, "console/desktop", "api-tokens");
      expect(await seriousViolations(page)).toEqual([]);
      await go(page, "Webhooks");
      await go(page, "API tokens");
      expect(await page.getByTestId("secret-value").count()).toBe(0); // shown once only
      const viaToken = await fetch(`${stack.baseUrl}/orders`, { headers: { authorization: `Bearer ${value}` } });
      expect(viaToken.status).toBe(200); // the value shown is a working token

      await go(page, "Webhooks");
      await page.getByRole("button", { name: "New webhook" }).click();
      await page.getByLabel("Name").fill("console hook");
      await page.getByLabel("URL").fill(receiverUrl);
      await page.getByLabel("Event kind").selectOption("order.created");
      await page.getByRole("button", { name: "Create webhook" }).click();
      expect(await page.getByTestId("secret-value").textContent()).toMatch(/^whsec_/);
      await screenshot(page, "console/desktop", "webhooks");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("link", { name: "console hook" }).click();
      await page.getByRole("heading", { name: "console hook" }).waitFor();
      await page.getByRole("button", { name: "Send test" }).click();
      await page.getByText(/Test delivery: succeeded, status 200/).waitFor();
      await page
        .getByText(/webhook\.test · status 200/)
        .first()
        .click();
      await page.getByText('"x-receiver": "console-test"').waitFor();
      await page.getByText("<b>thanks</b>").waitFor(); // the receiver's markup, as text
      expect(await page.locator("pre b").count()).toBe(0);
      await screenshot(page, "console/desktop", "webhook");
      expect(await seriousViolations(page)).toEqual([]);

      const customer = await api<{ id: string }>("POST", "/customers", { name: "Console Customer" });
      const product = await api<{ id: string }>("POST", "/products", { sku: "CONSOLE-1", name: "Console product", lowStockThreshold: 5 });
      const order = await api<{ id: string; shortId: string }>("POST", "/orders", {
        shortId: "CON-1",
        customerId: customer.id,
        currency: "EUR",
        orderItems: [{ productId: product.id, quantity: 1, price: "9.50" }],
      });
      await go(page, "Orders");
      await page.getByTestId("status-CON-1").getByText("pending").waitFor();
      await api("POST", `/orders/${order.id}/status`, { status: "cancelled" });
      await page.getByTestId("status-CON-1").getByText("cancelled").waitFor({ timeout: 15_000 });
      await screenshot(page, "console/desktop", "orders");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole("link", { name: "CON-1" }).click();
      await page.getByRole("heading", { name: "Order CON-1" }).waitFor();
      await page.getByText("order.created").first().waitFor();
      await screenshot(page, "console/desktop", "order");
      expect(await seriousViolations(page)).toEqual([]);

      for (const screen of ["Inventory", "Devices", "Events", "Warehouse", "Users", "Dashboard"]) {
        await go(page, screen);
        await page.waitForLoadState("networkidle").catch(() => {});
        expect(await seriousViolations(page), screen).toEqual([]);
        await screenshot(page, "console/desktop", screen.toLowerCase().replace(/ /g, "-"));
      }
      await page.getByText("low stock", { exact: false }).count();

      await go(page, "Webhooks");
      await page.getByRole("link", { name: "console hook" }).click();
      await page.getByRole("button", { name: "Pause" }).click();
      await page.getByRole("button", { name: "Resume" }).waitFor();
      const hooks = await api<{ data: { name: string; status: string }[] }>("GET", "/hooks");
      expect(hooks.data.find((h) => h.name === "console hook")?.status).toBe("paused");

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      await page.getByText("You signed out.").waitFor();
      expect(await page.evaluate(() => Object.keys(localStorage).length + Object.keys(sessionStorage).length)).toBe(0);
      expect(cspErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("on a phone: navigation behind Menu, no sideways scrolling, 44 px targets, the same flows", async () => {
    const { context, page, cspErrors } = await signedIn(PHONE);
    try {
      const nav = page.getByRole("navigation", { name: "Screens" });
      expect(await nav.isVisible()).toBe(false);
      await page.getByRole("button", { name: "Menu" }).click();
      expect(await nav.isVisible()).toBe(true);
      for (const link of await nav.getByRole("link").all()) expect((await link.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await screenshot(page, "console/phone", "menu");
      await page.getByRole("button", { name: "Menu" }).click();

      for (const screen of ["API tokens", "Webhooks", "Orders", "Inventory", "Devices", "Events", "Warehouse", "Users", "Dashboard"]) {
        await go(page, screen, true);
        await page.waitForLoadState("networkidle").catch(() => {});
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${screen} scrolls sideways`).toBeLessThanOrEqual(0);
        for (const button of await page.locator("main button:visible").all())
          expect((await button.boundingBox())!.height, `${screen} button`).toBeGreaterThanOrEqual(44);
        expect(await seriousViolations(page), screen).toEqual([]);
        await screenshot(page, "console/phone", screen.toLowerCase().replace(/ /g, "-"));
      }

      await go(page, "API tokens", true);
      await page.getByLabel("Token name").fill("phone token");
      await page.getByRole("button", { name: "Create token" }).click();
      expect(await page.getByTestId("secret-value").textContent()).toMatch(/^api-/);

      await go(page, "Webhooks", true);
      await page.getByRole("button", { name: "New webhook" }).click();
      await page.getByLabel("Name").fill("phone hook");
      await page.getByLabel("URL").fill(receiverUrl);
      await page.getByLabel("Event kind").selectOption("order.created");
      await page.getByRole("button", { name: "Create webhook" }).click();
      expect(await page.getByTestId("secret-value").textContent()).toMatch(/^whsec_/);
      await page.getByRole("link", { name: "phone hook" }).click();
      await page.getByRole("button", { name: "Send test" }).click();
      await page.getByText(/Test delivery: succeeded, status 200/).waitFor();
      await page.getByRole("button", { name: "Pause" }).click();
      await page.getByRole("button", { name: "Resume" }).waitFor();

      // The warehouse flow: a shipment found by tracking number, its delivery confirmed.
      const customer = await api<{ id: string }>("POST", "/customers", { name: "Phone Customer" });
      const product = await api<{ id: string }>("POST", "/products", { sku: "PHONE-1", name: "Phone product" });
      await api("POST", "/inventory/adjustments", { productId: product.id, delta: 5, reason: "initial" });
      const order = await api<{ id: string }>("POST", "/orders", {
        shortId: "PHN-1",
        customerId: customer.id,
        currency: "EUR",
        orderItems: [{ productId: product.id, quantity: 1, price: "3.00" }],
      });
      await api("POST", `/orders/${order.id}/status`, { status: "ready" });
      await api("POST", `/orders/${order.id}/status`, { status: "inProgress" });
      const shipment = await api<{ id: string }>("POST", `/orders/${order.id}/shipments`, { carrier: "DHL", trackingNumber: "TRACK-PHONE-1" });
      await api("POST", `/shipments/${shipment.id}/status`, { status: "inTransit", location: "Hub" });
      await go(page, "Warehouse", true);
      await page.getByLabel("Order, shipment or tracking number").fill("TRACK-PHONE-1");
      await page.getByRole("button", { name: "Look up" }).click();
      await page.getByLabel("Received by").fill("Dock 3");
      await page.getByRole("button", { name: "Confirm delivery" }).click();
      await page
        .locator(".cards .badge", { hasText: "delivered" })
        .waitFor({ timeout: 10_000 })
        .catch(async (error) => {
          await screenshot(page, "console/phone", "warehouse-failed");
          throw new Error(`${error}; on screen: ${await page.locator("main").innerText()}`);
        });
      await screenshot(page, "console/phone", "warehouse-delivered");
      const shipments = await api<{ data: { status: string }[] }>("GET", `/shipments?orderId=${order.id}`);
      expect(shipments.data[0].status).toBe("delivered");
      // The order made through the API shows on the phone, its status moved on by the delivery.
      await go(page, "Orders", true);
      await page.getByTestId("status-PHN-1").getByText("completed").waitFor({ timeout: 15_000 });
      await screenshot(page, "console/phone", "orders-completed");

      await page.getByRole("button", { name: "Menu" }).click();
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      expect(cspErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("returns to sign-in with a message when the session is no longer accepted", async () => {
    const { context, page } = await signedIn(DESKTOP);
    try {
      // Every other request of this page now carries a credential the API refuses, as after expiry.
      await page.route("**/v1/**", (route) => route.continue({ headers: { ...route.request().headers(), authorization: "Bearer expired.jwt.token" } }));
      // Going to Orders makes a request; the page's own refresh may make one first and end the
      // session before the click (the link is gone then), which is the same outcome.
      const orders = page.getByRole("navigation", { name: "Screens" }).getByRole("link", { name: "Orders", exact: true });
      const ended = page.getByText("Your session has ended; sign in again.");
      await Promise.race([orders.click().catch(() => undefined), ended.waitFor()]);
      await ended.waitFor();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      await screenshot(page, "console/desktop", "sign-in-expired");
    } finally {
      await context.close();
    }
  });
});
