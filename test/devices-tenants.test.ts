// Two tenants whose devices chose the same device id and client id: neither can receive, inject
// or take over the other's commands and sessions, see the other's devices, or touch the other's
// stock and shipments. Uses mqtt.js against the real gateway.
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createCustomer, createOrder, createStockedProduct, secondTenant, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let callA: Call;
let tenantB: { tenantId: string; token: string };
const clients: MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack();
  callA = client(stack);
  tenantB = await secondTenant(stack);
});

afterAll(async () => {
  for (const c of clients) await c.endAsync(true).catch(() => {});
  await stack?.stop();
});

interface Device {
  mqtt: MqttClient;
  sessionPresent: boolean;
  received: { topic: string; payload: string }[];
  closes: number;
}

async function connect(deviceId: string, token: string, options: IClientOptions = {}): Promise<Device> {
  const c = mqtt.connect(`mqtt://127.0.0.1:${stack.gateway.port}`, {
    username: deviceId,
    password: token,
    reconnectPeriod: 0,
    protocolVersion: 4,
    connectTimeout: 5_000,
    ...options,
  });
  clients.push(c);
  const device: Device = { mqtt: c, sessionPresent: false, received: [], closes: 0 };
  c.on("message", (topic, payload) => device.received.push({ topic, payload: payload.toString() }));
  c.on("close", () => device.closes++);
  const connack = await new Promise<{ sessionPresent: boolean }>((resolve, reject) => {
    c.once("connect", resolve);
    c.once("error", reject);
  });
  device.sessionPresent = connack.sessionPresent;
  return device;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const payloads = (device: Device) => device.received.map((m) => m.payload);

async function metric(opsPort: number, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => pattern.test(l));
  return line ? Number(line.split(" ").pop()) : 0;
}

describe("commands and sessions of devices with the same id in two tenants", () => {
  it("a command reaches only its own tenant's device; a device's publish on commands reaches no one", async () => {
    const sensorA = await issueToken(stack.env.databaseUrl, "sensor");
    const sensorB = await issueToken(stack.env.databaseUrl, "sensor", { tenantId: tenantB.tenantId });
    const a = await connect("shelf-x", sensorA.token);
    const b = await connect("shelf-x", sensorB.token);
    await a.mqtt.subscribeAsync("devices/shelf-x/commands/#", { qos: 1 });
    await b.mqtt.subscribeAsync("devices/shelf-x/commands/#", { qos: 1 });
    const unknownChannel = /waybill_mqtt_messages_dropped_total\{.*reason="unknown_channel"/;
    const droppedBefore = await metric(stack.gateway.opsPort, unknownChannel);

    // B tries to inject a command under the shared device id: acknowledged, dropped, counted.
    await b.mqtt.publishAsync("devices/shelf-x/commands/open", "from-b", { qos: 1 });
    await stack.gateway.sendCommand(sensorA.tenantId, "shelf-x", ["open"], "for-a");
    await stack.gateway.sendCommand(tenantB.tenantId, "shelf-x", ["close"], "for-b");
    await eventually(async () => (a.received.length >= 1 && b.received.length >= 1 ? true : undefined));
    await sleep(300);
    expect(a.received).toEqual([{ topic: "devices/shelf-x/commands/open", payload: "for-a" }]);
    expect(b.received).toEqual([{ topic: "devices/shelf-x/commands/close", payload: "for-b" }]);
    expect(await metric(stack.gateway.opsPort, unknownChannel)).toBe(droppedBefore + 1);
    expect(a.mqtt.connected && b.mqtt.connected).toBe(true);
  });

  it("B connecting with A's client id neither kicks A nor receives A's commands", async () => {
    const sensorA = await issueToken(stack.env.databaseUrl, "sensor");
    const sensorB = await issueToken(stack.env.databaseUrl, "sensor", { tenantId: tenantB.tenantId });
    const a = await connect("dock-1", sensorA.token, { clientId: "dock-1-client" });
    await a.mqtt.subscribeAsync("devices/dock-1/commands/#", { qos: 1 });
    const b = await connect("dock-1", sensorB.token, { clientId: "dock-1-client" });
    await b.mqtt.subscribeAsync("devices/dock-1/commands/#", { qos: 1 });
    await sleep(300);
    expect(a.closes).toBe(0);
    expect(a.mqtt.connected).toBe(true);

    await stack.gateway.sendCommand(sensorA.tenantId, "dock-1", ["reboot"], "a-only");
    await eventually(async () => (a.received.length === 1 ? true : undefined));
    await sleep(200);
    expect(payloads(a)).toEqual(["a-only"]);
    expect(b.received).toEqual([]);
    // The same client id in the same tenant and device is one session: MQTT takes over.
    const again = await connect("dock-1", sensorA.token, { clientId: "dock-1-client" });
    await eventually(async () => (a.closes > 0 ? true : undefined));
    expect(again.mqtt.connected && b.mqtt.connected).toBe(true);
  });

  it("B cannot take over A's persistent session (clean: false) or the commands queued for it", async () => {
    const sensorA = await issueToken(stack.env.databaseUrl, "sensor");
    const sensorB = await issueToken(stack.env.databaseUrl, "sensor", { tenantId: tenantB.tenantId });
    const session = { clientId: "gate-7-session", clean: false };
    const first = await connect("gate-7", sensorA.token, session);
    await first.mqtt.subscribeAsync("devices/gate-7/commands/#", { qos: 1 });
    await first.mqtt.endAsync();
    // A is offline: the command waits in A's session.
    await stack.gateway.sendCommand(sensorA.tenantId, "gate-7", ["open"], "queued-for-a");

    const b = await connect("gate-7", sensorB.token, session);
    expect(b.sessionPresent).toBe(false);
    await sleep(300);
    expect(b.received).toEqual([]);
    await b.mqtt.endAsync();

    const a = await connect("gate-7", sensorA.token, session);
    expect(a.sessionPresent).toBe(true);
    await eventually(async () => (a.received.length === 1 ? true : undefined));
    expect(a.received).toEqual([{ topic: "devices/gate-7/commands/open", payload: "queued-for-a" }]);
  });

  it("a device that unsubscribes receives no more commands", async () => {
    const sensor = await issueToken(stack.env.databaseUrl, "sensor");
    const device = await connect("unsub-1", sensor.token);
    await device.mqtt.subscribeAsync("devices/unsub-1/commands/#", { qos: 1 });
    await stack.gateway.sendCommand(sensor.tenantId, "unsub-1", ["ping"], "1");
    await eventually(async () => (device.received.length === 1 ? true : undefined));
    await device.mqtt.unsubscribeAsync("devices/unsub-1/commands/#");
    await sleep(100);
    await stack.gateway.sendCommand(sensor.tenantId, "unsub-1", ["ping"], "2");
    await sleep(300);
    expect(payloads(device)).toEqual(["1"]);
  });
});

describe("devices, stock and shipments across tenants", () => {
  it("B never sees A's devices, and B's sensor cannot move A's stock or A's shipments", async () => {
    const sensorA = await issueToken(stack.env.databaseUrl, "sensor");
    const sensorB = await issueToken(stack.env.databaseUrl, "sensor", { tenantId: tenantB.tenantId });
    const callB = client(stack, tenantB.token);

    const productId = await createStockedProduct(callA, 6);
    const customerId = await createCustomer(callA);
    const order = await createOrder(callA, customerId, [{ productId, quantity: 1 }]);
    expect((await setOrderStatus(callA, order.id, "ready")).status).toBe(200);
    const trackingNumber = `TEN-${order.id.slice(-8)}`;
    const shipment = await callA(`/orders/${order.id}/shipments`, { json: { carrier: "DHL", trackingNumber } });
    expect(shipment.status).toBe(201);

    const a = await connect("a-only-device", sensorA.token);
    const b = await connect("b-scanner", sensorB.token);
    const notFound = (channel: string, reason: string) => new RegExp(`waybill_device_messages_dropped_total\\{.*channel="${channel}".*reason="${reason}"`);
    const before = {
      stock: await metric(stack.inventory.opsPort, notFound("inventory", "product_not_found")),
      scan: await metric(stack.orders.opsPort, notFound("shipments", "shipment_not_found")),
    };
    await a.mqtt.publishAsync("devices/a-only-device/telemetry", JSON.stringify({ t: 1 }), { qos: 1 });
    await b.mqtt.publishAsync("devices/b-scanner/inventory", JSON.stringify({ productId, onHand: 99 }), { qos: 1 });
    await b.mqtt.publishAsync("devices/b-scanner/shipments", JSON.stringify({ trackingNumber, status: "inTransit" }), { qos: 1 });

    // For B, A's product and A's tracking number do not exist: both messages are dropped.
    await eventually(async () => ((await metric(stack.inventory.opsPort, notFound("inventory", "product_not_found"))) === before.stock + 1 ? true : undefined));
    await eventually(async () => ((await metric(stack.orders.opsPort, notFound("shipments", "shipment_not_found"))) === before.scan + 1 ? true : undefined));
    expect((await stockOf(callA, productId)).onHand).toBe(6);
    const unchanged = await callA(`/shipments/${shipment.body.id}`);
    expect(unchanged.body.status).toBe("pending");
    expect(unchanged.body.timeline.some((t: any) => t.status === "inTransit")).toBe(false);

    const listed = async (call: Call) => (await call("/devices?limit=100")).body.data.map((d: any) => d.deviceId);
    await eventually(async () => ((await listed(callA)).includes("a-only-device") && (await listed(callB)).includes("b-scanner") ? true : undefined));
    expect(await listed(callB)).not.toContain("a-only-device");
    expect(await listed(callA)).not.toContain("b-scanner");
    // A device id B has never used is simply not there for B, not "A's".
    const bDevices = await request(`${stack.baseUrl}/devices?limit=100`, { token: tenantB.token });
    expect(bDevices.body.data.every((d: any) => d.tokenId !== sensorA.id)).toBe(true);
  });
});
