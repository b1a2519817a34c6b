// Two tenants whose devices chose the same device id and client id: neither can receive, inject
// or take over the other's commands and sessions, see the other's devices, or touch the other's
// stock and shipments. Uses mqtt.js against the real gateway.
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Device as ListedDevice, Shipment } from "@waybill/sdk";
import { client, createCustomer, createOrder, createStockedProduct, otherTenant, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { metric } from "./support/metrics.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let callA: Call;
let tenantB: { tenantId: string; token: string };
const clients: MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack();
  callA = client(stack);
  tenantB = await otherTenant(stack);
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

const payloads = (device: Device) => device.received.map((m) => m.payload);

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
    // B's injected publish was handled (dropped and counted) …
    await eventually(async () => ((await metric(stack.gateway.opsPort, unknownChannel)) === droppedBefore + 1 ? true : undefined));
    // … and a later command to each device arrives after everything sent before it: what each got
    // by then is all it will get.
    await stack.gateway.sendCommand(sensorA.tenantId, "shelf-x", ["marker"], "last-a");
    await stack.gateway.sendCommand(tenantB.tenantId, "shelf-x", ["marker"], "last-b");
    await eventually(async () => (payloads(a).includes("last-a") && payloads(b).includes("last-b") ? true : undefined));
    expect(a.received).toEqual([
      { topic: "devices/shelf-x/commands/open", payload: "for-a" },
      { topic: "devices/shelf-x/commands/marker", payload: "last-a" },
    ]);
    expect(b.received).toEqual([
      { topic: "devices/shelf-x/commands/close", payload: "for-b" },
      { topic: "devices/shelf-x/commands/marker", payload: "last-b" },
    ]);
    expect(a.mqtt.connected && b.mqtt.connected).toBe(true);
  });

  it("B connecting with A's client id neither kicks A nor receives A's commands", async () => {
    const sensorA = await issueToken(stack.env.databaseUrl, "sensor");
    const sensorB = await issueToken(stack.env.databaseUrl, "sensor", { tenantId: tenantB.tenantId });
    const a = await connect("dock-1", sensorA.token, { clientId: "dock-1-client" });
    await a.mqtt.subscribeAsync("devices/dock-1/commands/#", { qos: 1 });
    const b = await connect("dock-1", sensorB.token, { clientId: "dock-1-client" });
    await b.mqtt.subscribeAsync("devices/dock-1/commands/#", { qos: 1 });

    // A still has its session after B's connect: a command sent now reaches it.
    await stack.gateway.sendCommand(sensorA.tenantId, "dock-1", ["reboot"], "a-only");
    await eventually(async () => (a.received.length === 1 ? true : undefined));
    expect(a.closes).toBe(0);
    expect(a.mqtt.connected).toBe(true);
    // B's own later command reaches B after anything sent before it: A's command never did.
    await stack.gateway.sendCommand(tenantB.tenantId, "dock-1", ["marker"], "b-only");
    await eventually(async () => (b.received.length >= 1 ? true : undefined));
    expect(payloads(a)).toEqual(["a-only"]);
    expect(payloads(b)).toEqual(["b-only"]);
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
    // Subscribed, B is sent its own tenant's command: it arrives, and A's queued one never does.
    await b.mqtt.subscribeAsync("devices/gate-7/commands/#", { qos: 1 });
    await stack.gateway.sendCommand(tenantB.tenantId, "gate-7", ["close"], "for-b");
    await eventually(async () => (b.received.length >= 1 ? true : undefined));
    expect(b.received).toEqual([{ topic: "devices/gate-7/commands/close", payload: "for-b" }]);
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
    // UNSUBACK: the gateway has applied the unsubscribe.
    await device.mqtt.unsubscribeAsync("devices/unsub-1/commands/#");
    await stack.gateway.sendCommand(sensor.tenantId, "unsub-1", ["ping"], "2");
    // A command on a topic still subscribed, sent after "2", arrives; "2" would have come first.
    await device.mqtt.subscribeAsync("devices/unsub-1/commands/marker", { qos: 1 });
    await stack.gateway.sendCommand(sensor.tenantId, "unsub-1", ["marker"], "3");
    await eventually(async () => (payloads(device).includes("3") ? true : undefined));
    expect(payloads(device)).toEqual(["1", "3"]);
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
    expect(unchanged.body.timeline.some((t: Shipment["timeline"][number]) => t.status === "inTransit")).toBe(false);

    const listed = async (call: Call) => (await call("/devices?limit=100")).body.data.map((d: ListedDevice) => d.deviceId);
    await eventually(async () => ((await listed(callA)).includes("a-only-device") && (await listed(callB)).includes("b-scanner") ? true : undefined));
    expect(await listed(callB)).not.toContain("a-only-device");
    expect(await listed(callA)).not.toContain("b-scanner");
    // A device id B has never used is simply not there for B, not "A's".
    const bDevices = await request(`${stack.baseUrl}/devices?limit=100`, { token: tenantB.token });
    expect(bDevices.body.data.every((d: ListedDevice) => d.tokenId !== sensorA.id)).toBe(true);
  });
});
