// Browser helpers for the console's end-to-end tests: sign in, visit a page by its URL, collect
// console errors and CSP violations, measure sideways overflow, run axe, and keep full-page
// screenshots under test-artifacts/console/<size>/. No vitest here: audit-console.ts uses it too.
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { seriousViolations } from "./browser.js";
import { CONSOLE_ADMIN } from "./console-system.js";
import { ROOT } from "./processes.js";

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const CONSOLE_SCREENSHOTS = path.join(ROOT, "test-artifacts/console");

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Console errors, uncaught exceptions and CSP violations seen so far. */
  problems: string[];
}

/** `serviceWorkers: "block"` when a test rewrites API requests (page.route does not see the worker's). */
export async function openConsole(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number },
  options: { serviceWorkers?: "allow" | "block" } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport, baseURL: url, ...options, ...(viewport.width < 640 ? { isMobile: true, hasTouch: true } : {}) });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || /Content Security Policy/i.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  return { context, page, problems };
}

export async function signIn(page: Page, options: { remember?: boolean } = {}): Promise<void> {
  await page.goto("/");
  await page.getByLabel("Email").fill(CONSOLE_ADMIN.email);
  await page.getByLabel("Password").fill(CONSOLE_ADMIN.password);
  if (options.remember === false) await page.getByLabel("Keep me signed in on this device").uncheck();
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
}

/** Client-side navigation to a console URL (as a link would), then waits for its level-1 heading. */
export async function visit(page: Page, url: string, heading: string | RegExp): Promise<void> {
  await page.evaluate((to) => {
    window.history.pushState({}, "", to);
    window.dispatchEvent(new PopStateEvent("popstate"));
  }, url);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
  // Lists and panels fill in after their queries: wait until nothing shown says "Loading". Closed
  // panels (a delivery's request body) load when opened and say so meanwhile, out of sight.
  await page
    .getByText(/^Loading .*…$/)
    .filter({ visible: true })
    .first()
    .waitFor({ state: "detached", timeout: 10_000 })
    .catch(() => {});
}

/** Elements (outside visually hidden parts) that reach past the viewport's right edge. */
export function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide: string[] = [];
    if (document.documentElement.scrollWidth > width) wide.push(`page scrollWidth ${document.documentElement.scrollWidth} > ${width}`);
    for (const el of document.querySelectorAll("body *")) {
      if (el.closest("thead, .visually-hidden, dialog:not([open]), .skip-link")) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (box.right > width + 0.5 || box.left < -0.5) {
        const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.split(" ").join(".")}` : ""}`;
        wide.push(`${name} [${Math.round(box.left)}, ${Math.round(box.right)}] "${(el.textContent ?? "").trim().slice(0, 40)}"`);
      }
    }
    return wide.slice(0, 10);
  });
}

/** axe-core's serious and critical findings, as short lines. */
export async function axeProblems(page: Page): Promise<string[]> {
  return (await seriousViolations(page)).map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

export async function consoleScreenshot(page: Page, size: "desktop" | "phone", name: string): Promise<void> {
  const dir = path.join(CONSOLE_SCREENSHOTS, size);
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
