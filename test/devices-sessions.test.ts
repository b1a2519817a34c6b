// How device sessions end: a token that expires while its device is connected, a revocation
// missed during a NATS gap (caught by re-validating live sessions), and a gateway killed with
// kill -9 whose devices must not stay "connected" for ever.
import mqtt, { type MqttClient } from "mqtt";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Device } from "@waybill/sdk";
import { freePort } from "../services/launcher/ports.js";
import { client, eventsUntil, type Call } from "./orders-fixtures.js";
import { readStoredReadings } from "./support/bus.js";
import { eventually } from "./support/http.js";
import { runTs, type Child } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let call: Call;
const clients: MqttClient[] = [];
const children: Child[] = [];

beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
});

afterAll(async () => {
  for (const c of clients) await c.endAsync(true).catch(() => {});
  for (const child of children) if (child.process.exitCode === null) child.process.kill("SIGKILL");
  await stack?.stop();
});

async function connectDevice(port: number, deviceId: string, password: string): Promise<MqttClient> {
  const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
    username: deviceId,
    password,
    reconnectPeriod: 0,
    protocolVersion: 4,
    connectTimeout: 5_000,
  });
  clients.push(device);
  return device;
}

const closed = (device: MqttClient) => new Promise<number>((resolve) => device.once("close", () => resolve(Date.now())));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const deviceRow = async (deviceId: string) => (await call("/devices?limit=100")).body.data.find((d: Device) => d.deviceId === deviceId);

describe("token expiry", () => {
  it("closes the session when the sensor token expires, and refuses it afterwards", async () => {
    const created = await call("/tokens", { json: { name: "short-lived", type: "sensor", expiresAt: new Date(Date.now() + 2_500).toISOString() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const expiresAt = Date.parse(created.body.expiresAt);
    const device = await connectDevice(stack.gateway.port, "expiring-1", created.body.token);
    await device.publishAsync("devices/expiring-1/telemetry", JSON.stringify({ before: true }), { qos: 1 });

    const closedAt = await closed(device);
    expect(closedAt).toBeGreaterThanOrEqual(expiresAt - 50);
    expect(closedAt - expiresAt).toBeLessThan(1_000);
    await expect(connectDevice(stack.gateway.port, "expiring-1", created.body.token)).rejects.toThrow(/Bad username or password/i);

    const stored = await readStoredReadings(stack.env.natsUrl, stack.env.topology.eventsStream, "expiring-1");
    expect(stored.map((m) => m.json.reading)).toEqual([{ before: true }]);
  });
});

describe("revocations missed during a NATS gap", () => {
  it("re-validating live sessions closes those whose token was revoked meanwhile, and keeps the others", async () => {
    const victim = await issueToken(stack.env.databaseUrl, "sensor");
    const survivor = await issueToken(stack.env.databaseUrl, "sensor");
    const revokedDevice = await connectDevice(stack.gateway.port, "gap-revoked", victim.token);
    const keptDevice = await connectDevice(stack.gateway.port, "gap-kept", survivor.token);

    // Revoked without the announcement reaching the gateway (as if NATS had been away).
    const db = new pg.Client({ connectionString: stack.env.databaseUrl });
    await db.connect();
    await db.query("UPDATE identity.api_tokens SET revoked_at = now() WHERE id = $1", [victim.id]);
    await db.end();
    await sleep(300);
    expect(revokedDevice.connected).toBe(true); // nothing told the gateway yet

    const closing = closed(revokedDevice);
    expect(await stack.gateway.revalidateSessions()).toBe(1);
    await closing;
    await sleep(200);
    expect(keptDevice.connected).toBe(true);
    await expect(connectDevice(stack.gateway.port, "gap-revoked", victim.token)).rejects.toThrow(/Bad username or password/i);
  });
});

describe("presence after a crash", () => {
  it("a gateway killed with kill -9 leaves no device connected, and device.disconnected is emitted", { timeout: 90_000 }, async () => {
    const startChild = async () => {
      const mqttPort = await freePort();
      // The gateway's main.ts as its own node process (no tsx wrapper process, so kill -9 hits
      // the gateway itself).
      const child = runTs("services/mqtt-gateway/main.ts", {
        ...stack.serviceEnv,
        MQTT_PORT: String(mqttPort),
        LOG_LEVEL: "info",
        // Short lease for the test: 3 missed beats of 300 ms.
        MQTT_PRESENCE_HEARTBEAT_MS: "300",
      });
      children.push(child);
      await child.waitForOutput(/mqtt gateway started/, 60_000);
      return { child, mqttPort };
    };
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");

    const first = await startChild();
    await connectDevice(first.mqttPort, "crash-1", sensor.token);
    await eventually(async () => ((await deviceRow("crash-1"))?.connected ? true : undefined));

    first.child.process.kill("SIGKILL");
    expect(await first.child.exited()).toBe(null);
    // The killed replica never wrote a disconnect; its lease runs out within ~1 s.
    await eventually(async () => ((await deviceRow("crash-1"))?.connected === false ? true : undefined), 5_000);

    const second = await startChild();
    const events = await eventsUntil(stack, (e) => e.deviceId === "crash-1", ["device.connected", "device.disconnected"]);
    expect(events.filter((e) => e.kind === "device.disconnected")).toHaveLength(1);
    expect((await deviceRow("crash-1")).connected).toBe(false);

    // The restarted replica counts its own sessions as usual.
    const again = await connectDevice(second.mqttPort, "crash-1", sensor.token);
    await eventually(async () => ((await deviceRow("crash-1"))?.connected ? true : undefined));
    await again.endAsync();
    await eventually(async () => ((await deviceRow("crash-1"))?.connected === false ? true : undefined));
    second.child.process.kill("SIGTERM");
    expect(await second.child.exited()).toBe(0);
  });
});
