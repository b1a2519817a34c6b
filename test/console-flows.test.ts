// What people do in the console, in a real browser against a seeded system: stay signed in across
// reloads on the refresh cookie and end sessions, find anything by a pasted id (Ctrl-K), create a
// token and a webhook with values shown once, test, retry and rotate (asked first, focus kept in
// the dialog and returned), work offline, switch the theme, and confirm a delivery on a phone.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/browser.js";
import { consoleScreenshot, DESKTOP, openConsole, PHONE, signIn, visit } from "./support/console-browser.js";
import { CONSOLE_ADMIN, type ConsoleSystem, startConsoleSystem } from "./support/console-system.js";

let system: ConsoleSystem;
let browser: Browser;

beforeAll(async () => {
  [system, browser] = await Promise.all([startConsoleSystem(), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

describe("console flows", () => {
  it("is served at / with a strict Content-Security-Policy, and routes survive a reload", async () => {
    const page = await fetch(`${system.url}/orders`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/style-src 'self'(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain('<div id="root">');
    const manifest = await (await fetch(`${system.url}/manifest.webmanifest`)).json();
    expect(manifest).toMatchObject({ display: "standalone", name: "Waybill console" });
    expect((await fetch(`${system.url}/sw.js`)).status).toBe(200);
    // Scripts travel compressed (brotli when the browser takes it), and stay scripts.
    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(await (await fetch(system.url)).text())![1];
    const compressed = await fetch(`${system.url}${script}`, { headers: { "accept-encoding": "br" } });
    expect(compressed.headers.get("content-encoding")).toBe("br");
    expect(compressed.headers.get("vary")).toContain("Accept-Encoding");
    expect(await compressed.text()).toContain("createRoot");
    expect((await fetch(`${system.url}/v1/orders`)).status).toBe(401); // the API is not shadowed
    expect((await fetch(`${system.url}/assets/gone-1234.js`)).status).toBe(404); // never index.html for a missing chunk
  });

  it("stays signed in across a reload on the HttpOnly refresh cookie, lists and ends sessions, and sign-out revokes", async () => {
    const { context, page, problems } = await openConsole(browser, system.url, DESKTOP);
    try {
      await signIn(page);
      const cookie = (await context.cookies()).find((c) => c.name === "waybill_session");
      expect(cookie).toMatchObject({ httpOnly: true, secure: true, sameSite: "Strict", path: "/v1/auth" });
      await page.reload();
      await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
      await page.goto("/orders"); // a new page load, as reopening the installed app
      await page.getByRole("heading", { name: "Orders", level: 1 }).waitFor();
      // Nothing in storage looks like a credential: the access token lives in memory only.
      const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
      expect(stored).not.toMatch(/eyJ|api-|waybill_session/);
      expect(stored).not.toContain(cookie!.value);

      // Another device signed in as the same person; ended from here, it can no longer refresh.
      const other = await fetch(`${system.url}/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Safari/604.1" },
        body: JSON.stringify({ ...CONSOLE_ADMIN, remember: true }),
      });
      const otherCookie = other.headers.get("set-cookie")!.split(";")[0];
      await visit(page, "/settings", "Settings");
      const sessions = page.getByRole("table", { name: "Sessions" });
      await sessions.getByText("Safari on iOS").waitFor();
      const row = sessions.locator("tr", { hasText: "Safari on iOS" });
      await row.getByRole("button", { name: "End session" }).click();
      await page.getByRole("alertdialog", { name: "End this session?" }).getByRole("button", { name: "End session" }).click();
      await sessions.getByText("Safari on iOS").waitFor({ state: "detached" });
      const refused = await fetch(`${system.url}/v1/auth/refresh`, { method: "POST", headers: { cookie: otherCookie } });
      expect(refused.status).toBe(401);

      await page.getByRole("button", { name: "Sign out" }).first().click();
      await page.getByText("You signed out.").waitFor();
      // The service worker's copies of what was read go with the session.
      await expect.poll(() => page.evaluate(() => caches.has("waybill-api-v1"))).toBe(false);
      await page.reload();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      const afterSignOut = await fetch(`${system.url}/v1/auth/refresh`, { method: "POST", headers: { cookie: `waybill_session=${cookie!.value}` } });
      expect(afterSignOut.status).toBe(401);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("finds anything by a pasted id or a shortId with Ctrl-K", async () => {
    const { context, page, problems } = await openConsole(browser, system.url, DESKTOP);
    const s = system.seed;
    try {
      await signIn(page);
      const events = await system.api<{ data: { id: string; kind: string }[] }>("GET", "/events?kind=order.created&limit=1");
      const tokens = await system.api<{ data: { id: string; name: string }[] }>("GET", "/tokens");
      const cases: [string, RegExp][] = [
        ["ORD-1002", /Order ORD-1002/],
        [s.order.id, /Order ORD-1001/],
        [events.data[0].id, /order\.created/],
        [s.failingHook.id, /ERP bridge/],
        [s.failedExecutionId, /ERP bridge/],
        [s.device.id, /shelf-12/],
        ["shelf-12", /shelf-12/],
        [s.fullProduct.id, /GAD-2/],
        [s.customer.id, /Ada Lovelace Ltd/],
        [tokens.data[0].id, /API tokens/],
        [s.shipment.id, /Order ORD-1001/],
      ];
      for (const [text, heading] of cases) {
        await page.keyboard.press("Control+K");
        const dialog = page.getByRole("dialog", { name: "Go to" });
        await dialog.waitFor();
        await dialog.getByRole("textbox").fill(text);
        await page.keyboard.press("Enter");
        await dialog.waitFor({ state: "hidden" }); // closed on arrival
        await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      }
      // The execution opens expanded on its webhook page.
      await page.keyboard.press("Control+K");
      await page.getByRole("dialog", { name: "Go to" }).getByRole("textbox").fill(s.failedExecutionId);
      await page.keyboard.press("Enter");
      await page.getByTestId(`execution-${s.failedExecutionId}`).getByText("<h1>maintenance</h1>").waitFor();
      await page.keyboard.press("Control+K");
      await page.getByRole("dialog", { name: "Go to" }).getByRole("textbox").fill("NO-SUCH-THING");
      await page.keyboard.press("Enter");
      await page.getByText("Nothing found for “NO-SUCH-THING”.").waitFor();
      await page.keyboard.press("Escape");
      await page.getByRole("dialog", { name: "Go to" }).waitFor({ state: "hidden" });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("on a desktop: a token shown once, a webhook with its secret, a test, a retry that refreshes the list, rotate asked first with focus trapped and returned", async () => {
    const { context, page, problems } = await openConsole(browser, system.url, DESKTOP);
    try {
      await signIn(page);
      // Keyboard: the first Tab reaches "Skip to content", then the navigation, each with a visible ring.
      for (const expected of ["Skip to content", "Waybill"]) {
        await page.keyboard.press("Tab");
        const focused = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const style = getComputedStyle(el);
          return { text: el.innerText.trim(), outline: style.outlineStyle, width: Number.parseFloat(style.outlineWidth) };
        });
        expect(focused.text).toBe(expected);
        expect(focused.outline).not.toBe("none");
        expect(focused.width).toBeGreaterThanOrEqual(2);
      }
      await visit(page, "/tokens", "API tokens");
      await page.getByRole("button", { name: "New token" }).click();
      await page.getByLabel("Token name").fill("console token");
      await page.getByRole("button", { name: "Create token" }).click();
      const value = await page.getByTestId("secret-value").textContent();
      expect(value).toMatch(/^api-[A-Za-z0-9_-]{20,}$/);
      await page.getByRole("cell", { name: "console token", exact: true }).waitFor();
      expect((await fetch(`${system.url}/v1/orders`, { headers: { authorization: `Bearer ${value}` } })).status).toBe(200);
      await visit(page, "/webhooks", "Webhooks");
      await visit(page, "/tokens", "API tokens");
      expect(await page.getByTestId("secret-value").count()).toBe(0); // shown once only

      await visit(page, "/webhooks", "Webhooks");
      await page.getByRole("button", { name: "New webhook" }).click();
      await page.getByLabel("Name").fill("console hook");
      await page.getByLabel("URL").fill(system.healthy.url);
      await page.getByLabel("Event kind").selectOption("order.created");
      await page.getByRole("button", { name: "Create webhook" }).click();
      expect(await page.getByTestId("secret-value").textContent()).toMatch(/^whsec_/);
      await page.getByRole("link", { name: "console hook" }).click();
      await page.getByRole("heading", { name: /console hook/, level: 1 }).waitFor();
      await page.getByRole("button", { name: "Send test" }).click();
      await page.getByText(/Test delivery: succeeded, status 200/).waitFor();

      // Recover the last hour: the seeded orders' events, made before the hook, are queued, and
      // their attempts appear in the list without a reload.
      const attemptsOfHook = page.getByRole("list", { name: "Attempts" }).locator(":scope > li");
      await page.getByRole("button", { name: "Last hour" }).click();
      const recovered = (await page.getByText(/events? queued for redelivery\. Their attempts appear below\./).textContent()) ?? "";
      const queued = Number(/(\d+) events? queued/.exec(recovered)?.[1]);
      expect(queued).toBeGreaterThan(0);
      const recoveredAttempts = attemptsOfHook.filter({ hasText: "· recover ·" });
      await expect.poll(() => recoveredAttempts.count(), { timeout: 15_000 }).toBe(queued);
      expect(await recoveredAttempts.filter({ has: page.locator('[data-status="succeeded"]') }).count()).toBe(queued);
      await consoleScreenshot(page, "desktop", "webhook-after-recover");

      // Retry a failed delivery: a 202 with JSON, a notice, and the new attempt in the list.
      await visit(page, `/webhooks/${system.seed.failingHook.id}?outcome=failed`, /ERP bridge/);
      // The other webhook's test result stayed with it.
      expect(await page.getByText(/Test delivery:/).count()).toBe(0);
      const attempts = page.getByRole("list", { name: "Attempts" }).locator(":scope > li");
      const before = await attempts.count();
      const first = attempts.first();
      await first.locator("summary").click();
      await first.getByText("<h1>maintenance</h1>").waitFor(); // the receiver's markup, as text
      expect(await page.locator("pre h1").count()).toBe(0);
      await first.getByRole("button", { name: "Retry this delivery" }).click();
      await page.getByText(/Delivery queued again/).waitFor();
      expect(await page.getByRole("alert").count()).toBe(0);
      await expect.poll(() => attempts.count(), { timeout: 15_000 }).toBeGreaterThan(before);
      await consoleScreenshot(page, "desktop", "webhook-after-retry");

      // Rotate asks first; Cancel changes nothing and gives focus back to the button.
      const rotate = page.getByRole("button", { name: "Rotate secret" });
      await rotate.click();
      const dialog = page.getByRole("alertdialog", { name: /Rotate the signing secret/ });
      await dialog.waitFor();
      await consoleScreenshot(page, "desktop", "rotate-confirm");
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press("Tab");
        expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      }
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      expect(await rotate.evaluate((b) => b === document.activeElement)).toBe(true);
      expect(await page.getByTestId("secret-value").count()).toBe(0);
      await rotate.click();
      await dialog.getByRole("button", { name: "Rotate secret" }).click();
      expect(await page.getByTestId("secret-value").textContent()).toMatch(/^whsec_/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("keeps the last data readable offline with a banner, writes nothing, and keeps the chosen theme", async () => {
    const { context, page, problems } = await openConsole(browser, system.url, DESKTOP);
    try {
      await signIn(page);
      await page.getByRole("button", { name: "Dark theme" }).click();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      await page.reload();
      await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
      expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).toBe("rgb(13, 17, 23)");
      await consoleScreenshot(page, "desktop", "dashboard-dark");

      await visit(page, `/orders/${system.seed.pendingOrder.id}`, /Order ORD-1002/);
      await context.setOffline(true);
      await page.getByText(/Offline: showing the last data seen/).waitFor();
      await page.getByRole("link", { name: "GAD-2 · Brass gadget" }).waitFor(); // still readable
      await page.getByRole("button", { name: "Mark ready" }).click();
      await page
        .getByRole("alert")
        .getByText(/You are offline: nothing was changed/)
        .waitFor();
      await consoleScreenshot(page, "desktop", "order-offline");
      // Reopened without a network: the shell and the last answers come from the service worker.
      await page.reload();
      await page.getByRole("heading", { name: /Order ORD-1002/, level: 1 }).waitFor();
      await page.getByText(/Offline: showing the last data seen/).waitFor();
      await page.getByRole("link", { name: "GAD-2 · Brass gadget" }).waitFor();
      await consoleScreenshot(page, "desktop", "order-reopened-offline");
      await context.setOffline(false);
      await page.getByRole("button", { name: "Mark ready" }).waitFor(); // signed in for real again
      await page.getByText(/Offline: showing the last data seen/).waitFor({ state: "detached" });
      expect((await system.api<{ status: string }>("GET", `/orders/${system.seed.pendingOrder.id}`)).status).toBe("pending");
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("on a phone: the menu and search within thumb reach, a delivery confirmed, a stock count with a product picker", async () => {
    const { context, page, problems } = await openConsole(browser, system.url, PHONE);
    try {
      await signIn(page);
      const nav = page.getByRole("navigation", { name: "Screens" });
      expect(await nav.isVisible()).toBe(false);
      const menu = page.getByRole("button", { name: "Menu" });
      expect((await menu.boundingBox())!.y).toBeGreaterThan(PHONE.height - 100); // the bottom bar
      await menu.click();
      expect(await nav.isVisible()).toBe(true);
      for (const link of await nav.getByRole("link").all()) expect((await link.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      await consoleScreenshot(page, "phone", "menu");
      await nav.getByRole("link", { name: "Warehouse" }).click();
      await page.getByRole("heading", { name: "Warehouse", level: 1 }).waitFor();
      expect(await nav.isVisible()).toBe(false);

      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("dialog", { name: "Go to" }).getByRole("textbox").fill("ORD-1001");
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: /Order ORD-1001/, level: 1 }).waitFor();

      await visit(page, "/warehouse", "Warehouse");
      await page.getByLabel("Order, shipment or tracking number").fill(system.seed.shipment.trackingNumber);
      await page.getByRole("button", { name: "Look up" }).click();
      await page.getByLabel("Received by").fill("Dock 3");
      await page.getByRole("button", { name: "Confirm delivery" }).click();
      await page.getByRole("list", { name: "Found" }).getByText("Delivered").waitFor();
      await consoleScreenshot(page, "phone", "warehouse-delivered");
      await expect
        .poll(async () => (await system.api<{ status: string }>("GET", `/orders/${system.seed.order.id}`)).status, { timeout: 15_000 })
        .toBe("completed");

      const count = page.getByRole("form", { name: "Stock count" });
      await count.getByLabel("Product").selectOption({ label: "GAD-2 · Brass gadget" });
      await count.getByLabel("Counted").fill("12");
      await count.getByRole("button", { name: "Save count" }).click();
      await page.getByText("Count saved.").waitFor();
      const stock = await system.api<{ data: { available: number; onHand: number }[] }>("GET", `/inventory?productId=${system.seed.fullProduct.id}`);
      expect(stock.data[0].onHand).toBe(12);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("returns to sign-in with a message when the session can no longer be renewed", async () => {
    const { context, page } = await openConsole(browser, system.url, DESKTOP, { serviceWorkers: "block" });
    try {
      await signIn(page, { remember: false });
      // Every API request now carries a credential the API refuses, as after expiry; without a
      // refresh cookie there is nothing to renew it with.
      await page.route("**/v1/**", (route) => route.continue({ headers: { ...route.request().headers(), authorization: "Bearer expired.jwt.token" } }));
      await page
        .getByRole("navigation", { name: "Screens" })
        .getByRole("link", { name: "Orders", exact: true })
        .click()
        .catch(() => undefined);
      await page.getByText("Your session has ended; sign in again.").waitFor();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
    } finally {
      await context.close();
    }
  });
});
