// The operator's scenario of a PostgreSQL restart: orders are created under load while the
// PostgreSQL server (the test's own port and data folder) is killed with -9, or shut down fast,
// and started again.
// The system (`npm start`, one process) must neither crash nor need a restart: during the outage
// requests are answered 503 database_unavailable with Retry-After, afterwards 201 again, and every
// order answered 201 reaches the hook within 30 s of the server being back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { orderLoad, startSystem, undelivered, type System } from "./restart-scenarios-fixtures.js";
import { eventually } from "./support/http.js";
import { startTestPostgres, type RestartableServer } from "./support/private-servers.js";
import { startReceiver, sleep, type TestReceiver } from "./webhooks-fixtures.js";

const CLIENTS = Number(process.env.SCENARIO_CLIENTS ?? 4);
const BEFORE_MS = 3_000;
const DOWN_MS = Number(process.env.SCENARIO_DOWN_MS ?? 3_000);
const AFTER_MS = 4_000;
const DELIVERED_WITHIN_MS = 30_000;

let postgres: RestartableServer;
let system: System;
let receiver: TestReceiver;

beforeAll(async () => {
  postgres = await startTestPostgres();
  system = await startSystem({ databaseUrl: postgres.url });
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await postgres?.start();
  await system?.stop();
  await receiver?.close();
  await postgres?.stop();
}, 60_000);

/** One outage: orders under load, the server taken down with `signal` for DOWN_MS, then back. */
async function outage(signal: NodeJS.Signals, label: string): Promise<void> {
  const customer = await system.call("/customers", { json: { name: `Restart Customer ${label}` } });
  expect(customer.status).toBe(201);
  const hook = await system.call("/hooks", { json: { name: `orders ${label}`, url: receiver.url, on: "order.created" } });
  expect(hook.status).toBe(201);
  let stop = false;
  const load = orderLoad(system.call, customer.body.id, CLIENTS, () => stop);
  await sleep(BEFORE_MS);
  await postgres.kill(signal);
  // While it is down: a clear 503, not a hang and not a 500.
  const during = await system.call("/orders?limit=1");
  await sleep(DOWN_MS);
  await postgres.start();
  const backAt = Date.now();
  // The API answers again without any restart of the system.
  const answeringAt = await eventually(async () => ((await system.call("/orders?limit=1")).status === 200 ? Date.now() : undefined), 30_000, 100);
  await sleep(AFTER_MS);
  stop = true;
  const tally = await load;

  let missing: string[] = [];
  const recovered = await eventually(
    async () => {
      missing = undelivered(tally.created, receiver);
      return missing.length === 0 ? Date.now() : undefined;
    },
    DELIVERED_WITHIN_MS,
    200,
  ).catch(() => undefined);
  console.log(
    `postgres ${label}: orders answered 201: ${tally.created.length}, refused: ${JSON.stringify(Object.fromEntries(tally.refused))} (${tally.withoutRetryAfter} without Retry-After), unanswered: ${tally.unanswered}, ` +
      `API answering ${answeringAt - backAt} ms after the server was back, delivered: ${tally.created.length - missing.length}, undelivered: ${missing.length}, ` +
      `all delivered ${recovered ? `${recovered - backAt} ms` : "never"} after the server was back`,
  );
  expect(system.launcher.process.exitCode, system.launcher.output().slice(-3_000)).toBeNull();
  expect(system.launcher.output()).not.toMatch(/Unhandled 'error' event|uncaught/i);
  expect(during.status, JSON.stringify(during.body)).toBe(503);
  expect(during.body.code).toBe("database_unavailable");
  expect(during.headers.get("content-type")).toContain("application/problem+json");
  expect(Number(during.headers.get("retry-after"))).toBeGreaterThan(0);
  // Whatever was refused was refused as unavailable, with Retry-After; nothing crashed or hung.
  for (const key of tally.refused.keys()) expect(key).toMatch(/^503 (database_unavailable|upstream_unavailable)$|^429 rate_limited$/);
  expect(tally.withoutRetryAfter).toBe(0);
  expect(tally.unanswered).toBe(0);
  expect(tally.created.length).toBeGreaterThan(0);
  expect(missing).toEqual([]);
}

describe("a PostgreSQL server going away under load and coming back", () => {
  it(
    "killed with -9: answers 503 database_unavailable meanwhile, never crashes, and delivers every order answered 201",
    () => outage("SIGKILL", "-9"),
    150_000,
  );
  // A fast shutdown terminates every session with 57P01 (admin_shutdown): the error of the issue.
  it("shut down (fast, 57P01 to every session): the same", () => outage("SIGINT", "fast shutdown"), 150_000);
});
