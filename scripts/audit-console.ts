// npm run audit:console — Lighthouse (pinned in package.json) with Debian's chromium, mobile
// emulation and its simulated slow network, on the console's dashboard, an order and a webhook
// of a system it starts and seeds itself (test/support/console-system.ts). Prints a ratio line per
// page and category, and the initial JavaScript size; exits 1 when a target is missed.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import lighthouse from "lighthouse";
import { chromium } from "playwright-core";
import { CHROMIUM } from "../test/support/browser.js";
import { CONSOLE_ADMIN, startConsoleSystem } from "../test/support/console-system.js";
import { ROOT } from "../test/support/processes.js";

const TARGETS = { accessibility: 0.95, "best-practices": 0.95, performance: 0.9 } as const;
const INITIAL_JS_BUDGET_KB = 250;
const REPORTS = path.join(ROOT, "test-artifacts/console");

/** The JavaScript index.html loads before anything else: its module script and its preloads, gzipped. */
async function initialJsKb(): Promise<number> {
  const dist = path.join(ROOT, "clients/console/dist");
  const html = await readFile(path.join(dist, "index.html"), "utf8");
  const files = [...html.matchAll(/<(?:script[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+\.js)"/g)].map((m) => m[1]);
  let bytes = 0;
  for (const file of files) bytes += gzipSync(await readFile(path.join(dist, file))).length;
  return bytes / 1024;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const system = await startConsoleSystem();
const port = await freePort();
// One persistent profile: the refresh cookie set by signing in here is the one Lighthouse's tabs send.
const profile = path.join(os.tmpdir(), `waybill-audit-${process.pid}`);
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", `--remote-debugging-port=${port}`],
});
let missed = 0;
try {
  const page = await browser.newPage();
  await page.goto(system.url);
  await page.getByLabel("Email").fill(CONSOLE_ADMIN.email);
  await page.getByLabel("Password").fill(CONSOLE_ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
  await page.close();

  const pages = {
    dashboard: `${system.url}/`,
    order: `${system.url}/orders/${system.seed.order.id}`,
    webhook: `${system.url}/webhooks/${system.seed.failingHook.id}`,
  };
  for (const [name, url] of Object.entries(pages)) {
    const result = await lighthouse(url, {
      port,
      output: "json",
      logLevel: "error",
      onlyCategories: Object.keys(TARGETS),
      // Keep the signed-in profile (its refresh cookie and the theme) between runs.
      disableStorageReset: true,
    });
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    // The whole report, for a closer look (Lighthouse's viewer opens it).
    await mkdir(REPORTS, { recursive: true });
    await writeFile(path.join(REPORTS, `lighthouse-${name}.json`), String(result.report));
    for (const [category, goal] of Object.entries(TARGETS)) {
      const score = result.lhr.categories[category]?.score ?? 0;
      if (score < goal) missed += 1;
      console.log(`ratio ${name}-${category}: ${score.toFixed(2)} (target >= ${goal.toFixed(2)})`);
    }
    const failing = Object.values(result.lhr.audits).filter(
      (a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual",
    );
    if (failing.length > 0) console.log(`  ${name}: below 0.9: ${failing.map((a) => `${a.id} (${a.displayValue ?? a.score})`).join(", ")}`);
  }
  const kb = await initialJsKb();
  if (kb > INITIAL_JS_BUDGET_KB) missed += 1;
  console.log(`initial JavaScript: ${kb.toFixed(1)} KB gzip (target < ${INITIAL_JS_BUDGET_KB} KB)`);
} finally {
  await browser.close();
  await system.stop();
}
process.exit(missed > 0 ? 1 : 0);
