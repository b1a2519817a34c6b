// The console's every page in a real browser (Debian's chromium) at 1280×800 and 390×844 against
// a running system seeded through the API: each numbered defect of issue 31 is gone, nothing is
// wider than the phone's screen, lists are cards on the phone, axe finds nothing serious, and no
// console error or CSP violation shows. Full-page screenshots land in test-artifacts/console/.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/browser.js";
import { axeProblems, consoleScreenshot, DESKTOP, openConsole, overflowing, PHONE, signIn, visit } from "./support/console-browser.js";
import { type ConsoleSystem, startConsoleSystem } from "./support/console-system.js";

let system: ConsoleSystem;
let browser: Browser;

beforeAll(async () => {
  [system, browser] = await Promise.all([startConsoleSystem(), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** Every page, with the heading it shows; the walk checks each at both sizes. */
function pages(): { name: string; url: string; heading: string | RegExp; list?: boolean }[] {
  const s = system.seed;
  return [
    { name: "dashboard", url: "/", heading: "Dashboard" },
    { name: "orders", url: "/orders", heading: "Orders", list: true },
    { name: "order", url: `/orders/${s.order.id}`, heading: /Order ORD-1001/ },
    { name: "webhooks", url: "/webhooks", heading: "Webhooks", list: true },
    { name: "webhook-failing", url: `/webhooks/${s.failingHook.id}`, heading: /ERP bridge/ },
    { name: "webhook-healthy", url: `/webhooks/${s.healthyHook.id}`, heading: /Warehouse sync/ },
    { name: "events", url: "/events", heading: "Events", list: true },
    { name: "event", url: `/events/${s.statusEventId}`, heading: "order.status.changed" },
    { name: "devices", url: "/devices", heading: "Devices", list: true },
    { name: "device", url: "/devices/shelf-12", heading: /shelf-12/ },
    { name: "inventory", url: "/inventory", heading: "Inventory", list: true },
    { name: "product", url: `/products/${s.emptyProduct.id}`, heading: /WID-1/ },
    { name: "customers", url: "/customers", heading: "Customers", list: true },
    { name: "customer", url: `/customers/${s.customer.id}`, heading: /Ada Lovelace Ltd/ },
    { name: "tokens", url: "/tokens", heading: "API tokens", list: true },
    { name: "users", url: "/users", heading: "Users", list: true },
    { name: "warehouse", url: "/warehouse", heading: "Warehouse" },
    { name: "settings", url: "/settings", heading: "Settings", list: true },
  ];
}

/** What the page says in words: the main region without its code blocks (an event's JSON shows the API's values on purpose). */
async function text(page: Page): Promise<string> {
  let words = await page.locator("main").innerText();
  for (const code of await page.locator("main pre").allInnerTexts()) words = words.replace(code, "");
  return words;
}

for (const [size, viewport] of [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const) {
  describe(`every page at ${viewport.width}×${viewport.height}`, () => {
    it("readable, accessible, within the screen, with no console error or CSP violation", async () => {
      const { context, page, problems } = await openConsole(browser, system.url, viewport);
      try {
        await signIn(page);
        for (const p of pages()) {
          await visit(page, p.url, p.heading);
          const body = await text(page);
          expect(body, `${p.name} shows the API's words`).not.toMatch(/\binProgress\b|\binTransit\b/);
          expect(await axeProblems(page), `${p.name}: axe`).toEqual([]);
          if (size === "phone") {
            expect(await overflowing(page), `${p.name}: wider than the phone`).toEqual([]);
            if (p.list) {
              // Cards: each row of the list is a block of the screen's width, its header hidden.
              const rows = page.locator(".data-list tbody tr");
              expect(await rows.count(), `${p.name}: rows`).toBeGreaterThan(0);
              expect(await rows.first().evaluate((row) => getComputedStyle(row).display)).toBe("grid");
              expect(
                await page
                  .locator(".data-list thead")
                  .first()
                  .evaluate((head) => head.getBoundingClientRect().width),
              ).toBeLessThanOrEqual(1);
            }
            for (const button of await page.locator("main button:visible").all())
              expect((await button.boundingBox())!.height, `${p.name}: touch target`).toBeGreaterThanOrEqual(44);
          }
          await consoleScreenshot(page, size, p.name);
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);

    it("shows what the issue found missing: devices by their id with readings, low stock at 0, a readable legend, orders in words", async () => {
      const { context, page, problems } = await openConsole(browser, system.url, viewport);
      try {
        await signIn(page);
        // 3: low stock names the product with 0 available (no threshold set); the legend has values.
        await page.getByTestId("low-stock").getByText("WID-1 · Blue widget").waitFor();
        await expect.poll(() => page.getByTestId("low-stock").innerText()).toContain("Out of stock");
        const legend = await page.getByTestId("chart-legend").innerText();
        expect(legend).toMatch(/Succeeded\s+[1-9]\d*/);
        expect(legend).toMatch(/Failed\s+[1-9]\d*/);
        expect(legend).toMatch(/Success rate\s+\d+ %/);
        expect(legend).not.toContain("--");
        await page.getByTestId("hooks-attention").getByText("ERP bridge").waitFor();

        // 2: devices by their own id, the latest reading shown, a row leading to the device.
        await visit(page, "/devices", "Devices");
        await page
          .getByTestId("latest-shelf-12")
          .getByText(/temperatureC/)
          .waitFor();
        expect(await text(page)).not.toContain(system.seed.device.id);
        expect(
          await page
            .getByText("Connected", { exact: true })
            .first()
            .evaluate((el) => el.scrollWidth <= el.clientWidth + 1),
        ).toBe(true);
        await page.getByRole("link", { name: "shelf-12" }).click();
        await page.getByRole("heading", { name: /shelf-12/, level: 1 }).waitFor();
        await expect.poll(() => page.getByTestId("reading").count()).toBe(3);
        await page.getByRole("img", { name: /temperatureC: 4.1, 4.4, 3.9/ }).waitFor();

        // 4: the order's lines by SKU and name, its customer, human labels on status changes.
        await visit(page, `/orders/${system.seed.order.id}`, /Order ORD-1001/);
        await page.getByRole("link", { name: "WID-1 · Blue widget" }).waitFor();
        await page.getByRole("link", { name: "GAD-2 · Brass gadget" }).waitFor();
        expect(await page.getByTestId("order-customer").innerText()).toBe("Ada Lovelace Ltd");
        expect(await page.getByTestId("order-status").innerText()).toBe("In progress");
        await page.getByTestId("status-timeline").getByText("Ready → In progress").waitFor();
        const buttons = await page.locator("main button").allInnerTexts();
        expect(buttons.join(" | ")).not.toMatch(/Move to|inProgress/);
        expect(await text(page)).not.toContain(system.seed.emptyProduct.id);
        // The list: a customer column and a search by shortId.
        await visit(page, "/orders", "Orders");
        expect(await page.getByRole("table", { name: "Orders" }).innerText()).toContain("Ada Lovelace Ltd");
        await page.getByLabel("Search by shortId").fill("1002");
        await expect.poll(() => page.locator(".data-list tbody tr").count()).toBe(1);
        await page.getByRole("link", { name: "ORD-1002" }).waitFor();
        await visit(page, "/orders?status=inProgress", "Orders");
        await expect.poll(() => page.locator(".data-list tbody tr").count()).toBe(1);
        expect(await page.getByLabel("Status").inputValue()).toBe("inProgress");

        // 5: events as rows leading to a detail with the JSON payload; a search by entity.
        await visit(page, `/events?entity=${system.seed.order.id}`, "Events");
        const kinds = await page.locator(".data-list tbody tr td:first-child").allInnerTexts();
        expect(kinds.length).toBeGreaterThan(3);
        expect(kinds).not.toContain("device.reading");
        await page.getByRole("link", { name: "order.created" }).first().click();
        await page.getByRole("heading", { name: "order.created", level: 1 }).waitFor();
        const json = await page.getByTestId("event-json").innerText();
        expect(JSON.parse(json)).toMatchObject({ kind: "order.created", orderId: system.seed.order.id, shortId: "ORD-1001" });
        await page.getByRole("link", { name: "Warehouse sync" }).waitFor(); // its delivery to the healthy hook
        // A device's id filters on the server too (deviceId): only that device's events.
        await visit(page, "/events?entity=shelf-12", "Events");
        const deviceKinds = await page.locator(".data-list tbody tr td:first-child").allInnerTexts();
        expect(deviceKinds.length).toBeGreaterThan(0);
        expect(deviceKinds.filter((kind) => !kind.startsWith("device."))).toEqual([]);

        // 7: the stock count picks a product by SKU and name.
        await visit(page, "/warehouse", "Warehouse");
        const count = page.getByRole("form", { name: "Stock count" });
        expect(await count.getByLabel("Product").locator("option").allInnerTexts()).toEqual(["GAD-2 · Brass gadget", "WID-1 · Blue widget"]);
        expect(await count.locator('input[name="productId"]').count()).toBe(0);

        // 6: the new-webhook kinds are the subscribable ones.
        await visit(page, "/webhooks", "Webhooks");
        await expect.poll(() => page.getByTestId("hook-ERP bridge").innerText()).toBe("Failing");
        expect(await page.getByTestId("hook-Warehouse sync").innerText()).toBe("Active");
        await page.getByRole("button", { name: "New webhook" }).click();
        const offered = await page.getByLabel("Event kind").locator("option").allInnerTexts();
        expect(offered).toContain("order.created");
        expect(offered).not.toContain("webhook.test");
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
