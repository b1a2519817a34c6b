// `npm start`'s launcher as a real process: all services, the bootstrap token, orders over HTTP,
// devices over MQTT on a free port when 1883 is taken, and a clean stop on Ctrl-C.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { request } from "./support/http.js";
import { runTs, type Child } from "./support/processes.js";
import { issueToken } from "./support/tokens.js";

let env: TestEnvironment;
let launcher: Child;
let blocker: net.Server | undefined;
const token = "api-launcher-test-token-0123456789abcdef";
const dataDir = mkdtempSync(path.join(os.tmpdir(), "waybill-launcher-"));
/** The test server trusts local connections: the password is there to show that it is never printed. */
const DATABASE_PASSWORD = "launcher-db-password-never-printed";
const withPassword = (databaseUrl: string) => {
  const url = new URL(databaseUrl);
  url.password = DATABASE_PASSWORD;
  return url.toString();
};
const launcherEnv = () => ({
  ...env.env,
  DATABASE_URL: withPassword(env.databaseUrl),
  WAYBILL_DATA_DIR: dataDir,
  HTTP_PORT: "0",
  MQTT_PORT: undefined,
  BOOTSTRAP_API_TOKEN: token,
  LOG_LEVEL: "warn",
});
const mqttPortOf = (out: string) => Number(out.match(/MQTT: +mqtt:\/\/127\.0\.0\.1:(\d+)/)![1]);

beforeAll(async () => {
  env = await createTestEnvironment();
  // Make sure 1883 is taken even where no Mosquitto runs, so the fallback is what is tested.
  blocker = await new Promise<net.Server | undefined>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(undefined));
    server.listen(1883, "0.0.0.0", () => resolve(server));
  });
  launcher = runTs("services/launcher/main.ts", launcherEnv());
  await launcher.waitForOutput(/Press Ctrl-C to stop\./, 45_000);
});

afterAll(async () => {
  if (launcher.process.exitCode === null) launcher.process.kill("SIGKILL");
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  await env.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("prints the base URL and a free MQTT port because 1883 is taken", () => {
    const out = launcher.output();
    expect(out).toMatch(/HTTP API: +http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(out).toMatch(/API docs: +http:\/\/127\.0\.0\.1:\d+\/docs/);
    expect(out).toContain("port 1883 is taken");
    const mqttPort = Number(out.match(/MQTT: +mqtt:\/\/127\.0\.0\.1:(\d+)/)![1]);
    expect(mqttPort).not.toBe(1883);
    expect(mqttPort).toBeGreaterThan(0);
  });

  it("prints what it is connected to: PostgreSQL and database, NATS and stream prefix, ports, private webhook addresses; no password", () => {
    const out = launcher.output();
    const database = new URL(env.databaseUrl);
    expect(out).toContain(`PostgreSQL: ${database.host}${database.pathname} as ${database.username}`);
    expect(out).toContain(`NATS:       ${env.natsUrl}, stream prefix "${env.streamPrefix}": ${env.streamPrefix}EVENTS, ${env.streamPrefix}INGRESS`);
    expect(out).toMatch(/HTTP API: +http:\/\/127\.0\.0\.1:(\d+)\/v1 .*port \1 on /);
    expect(out).toMatch(/MQTT: +mqtt:\/\/127\.0\.0\.1:(\d+) +\(port \1 on /);
    expect(out).toMatch(/Console: +http:\/\/127\.0\.0\.1:\d+\//);
    expect(out).toContain("Webhooks:   private and loopback addresses refused (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow)");
    expect(out).toMatch(/Installation: inst_[0-9a-z]+ \(owns those streams\)/);
    expect(out).not.toContain(DATABASE_PASSWORD);
  });

  it("serves POST and GET /v1/orders with the bootstrap token", async () => {
    const base = launcher.output().match(/HTTP API: +(http:\/\/\S+\/v1)/)![1];
    // Orders name an existing customer of their tenant.
    const customer = await request(`${base}/customers`, { token, json: { name: "Launcher Customer" } });
    expect(customer.status).toBe(201);
    // ... and existing products.
    const productId = (
      await request(`${base}/products`, {
        token: token,
        json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
      })
    ).body.id;
    const created = await request(`${base}/orders`, {
      token,
      json: { shortId: "START-1", customerId: customer.body.id, currency: "EUR", orderItems: [{ productId, quantity: 2, price: "3.50" }] },
    });
    expect(created.status).toBe(201);
    expect(created.body.total).toBe("7.00");
    const read = await request(`${base}/orders/${created.body.id}`, { token });
    expect(read.status).toBe(200);
    expect(read.body.shortId).toBe("START-1");
  });

  it("accepts a device with a sensor token on the MQTT port and refuses an api token", async () => {
    const port = Number(launcher.output().match(/MQTT: +mqtt:\/\/127\.0\.0\.1:(\d+)/)![1]);
    const sensor = await issueToken(env.databaseUrl, "sensor");
    const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username: "dock-1", password: sensor.token, reconnectPeriod: 0, protocolVersion: 4 });
    await device.publishAsync("devices/dock-1/telemetry", JSON.stringify({ temperature: 4.5 }), { qos: 1 });
    await device.endAsync();
    await expect(
      mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { username: "dock-1", password: token, reconnectPeriod: 0, protocolVersion: 4 }),
    ).rejects.toThrow(/Bad username or password/i);
  });

  it("stops every service cleanly on Ctrl-C", async () => {
    launcher.process.kill("SIGINT");
    expect(await launcher.exited(30_000)).toBe(0);
    expect(launcher.output()).toContain("Waybill: stopped.");
  });

  it("on the next start: the same MQTT port, and BOOTSTRAP_API_TOKEN reported as ignored with the command that gives a token", async () => {
    const firstPort = mqttPortOf(launcher.output());
    expect(JSON.parse(readFileSync(path.join(dataDir, "launcher-state.json"), "utf8"))).toMatchObject({ mqttPort: firstPort });
    const other = "api-another-token-that-is-never-created-0123";
    launcher = runTs("services/launcher/main.ts", { ...launcherEnv(), BOOTSTRAP_API_TOKEN: other });
    await launcher.waitForOutput(/Press Ctrl-C to stop\./, 45_000);
    const out = launcher.output();
    expect(mqttPortOf(out)).toBe(firstPort);
    expect(out).toContain("BOOTSTRAP_API_TOKEN is set but IGNORED");
    expect(out).toContain("npm run -s admin -- tokens create --tenant default --name my-token --type api");
    // Truthful: that token indeed does not work; the first start's still does.
    const base = out.match(/HTTP API: +(http:\/\/\S+\/v1)/)![1];
    expect((await request(`${base}/orders`, { token: other })).status).toBe(401);
    expect((await request(`${base}/orders`, { token })).status).toBe(200);
    // A hook whose secret is sealed with the data folder's key, for the next test.
    expect((await request(`${base}/hooks`, { token, json: { name: "sealed", url: "https://receiver.invalid/hook", on: "order.created" } })).status).toBe(201);
    launcher.process.kill("SIGINT");
    expect(await launcher.exited(30_000)).toBe(0);
  });

  it("refuses to start, saying why, when the webhook secret key file is gone while hooks exist", async () => {
    rmSync(path.join(dataDir, "webhook-secret-key"));
    launcher = runTs("services/launcher/main.ts", launcherEnv());
    expect(await launcher.exited(60_000)).toBe(1);
    const out = launcher.output();
    expect(out).toMatch(/Waybill: the webhook secret key .* is not the key that sealed the secrets of the 1 existing hook\(s\)/);
    expect(out).toContain("Start with the original key again");
    expect(out).not.toContain("Waybill is running.");
  });
});
