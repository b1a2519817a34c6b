// Devices over MQTT and HTTP, across the real services: stock counts and shipment scans applied
// by inventory and orders, refusals (token types, revocation, foreign topics), the device
// registry behind GET /v1/devices, and tenant isolation. Uses mqtt.js and mosquitto_pub.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { derivedId } from "@waybill/platform/ids.js";
import type { Device } from "@waybill/sdk";
import { client, createCustomer, createOrder, createStockedProduct, eventsUntil, otherTenant, setOrderStatus, stockOf, type Call } from "./orders-fixtures.js";
import { readStoredReadings, readStream } from "./support/bus.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

const run = promisify(execFile);
const MOSQUITTO_PUB = "/usr/bin/mosquitto_pub";

let stack: Stack;
let call: Call;
let mqttUrl: string;
const devices: MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
  mqttUrl = `mqtt://127.0.0.1:${stack.gateway.port}`;
});

afterAll(async () => {
  for (const device of devices) await device.endAsync(true).catch(() => {});
  await stack?.stop();
});

async function sensorToken(name = "sensor"): Promise<{ id: string; token: string }> {
  const answer = await call("/tokens", { json: { name, type: "sensor" } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { id: answer.body.id, token: answer.body.token };
}

async function connectDevice(deviceId: string, password: string): Promise<MqttClient> {
  const device = await mqtt.connectAsync(mqttUrl, { username: deviceId, password, reconnectPeriod: 0, protocolVersion: 4, connectTimeout: 5_000 });
  devices.push(device);
  return device;
}

const publish = (device: MqttClient, topic: string, body: unknown) =>
  device.publishAsync(topic, typeof body === "string" ? body : JSON.stringify(body), { qos: 1 });

async function metric(opsPort: number, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => pattern.test(l));
  return line ? Number(line.split(" ").pop()) : 0;
}

const storedReadings = (deviceId: string) => readStoredReadings(stack.env.natsUrl, stack.env.topology.eventsStream, deviceId);

function closed(device: MqttClient): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => device.once("close", () => resolve(Date.now() - started)));
}

describe("stock counts from devices", () => {
  it("an mqtt.js sensor's count becomes on hand, with inventory.adjusted and inventory.depleted", async () => {
    const productId = await createStockedProduct(call, 5);
    const sensor = await sensorToken();
    const device = await connectDevice("shelf-1", sensor.token);
    await publish(device, "devices/shelf-1/inventory", { productId, onHand: 42 });
    await eventually(async () => ((await stockOf(call, productId)).onHand === 42 ? true : undefined));
    await publish(device, "devices/shelf-1/inventory", { productId, location: "default", onHand: 0, measuredAt: new Date().toISOString() });
    await eventually(async () => ((await stockOf(call, productId)).onHand === 0 ? true : undefined));
    const events = await eventsUntil(stack, (e) => e.productId === productId, ["inventory.adjusted", "inventory.depleted"]);
    const adjusted = events.filter((e) => e.kind === "inventory.adjusted");
    expect(adjusted.map((e) => [e.onHand, e.reason])).toEqual([
      [5, "initial count"],
      [42, "device shelf-1"],
      [0, "device shelf-1"],
    ]);
    // Stock counts are not readings: only the telemetry makes a device.reading.
    await publish(device, "devices/shelf-1/telemetry", { temperature: 3.5 });
    const readings = await eventsUntil(stack, (e) => e.deviceId === "shelf-1" && e.kind === "device.reading", ["device.reading"]);
    expect(readings.map((e) => e.reading)).toEqual([{ temperature: 3.5 }]);
  });

  it("a count that crosses lowStockThreshold emits inventory.low", async () => {
    const product = await call("/products", { json: { sku: `LOW-${Date.now()}`, name: "Gauge", lowStockThreshold: 5 } });
    expect(product.status, JSON.stringify(product.body)).toBe(201);
    const productId = product.body.id;
    expect((await call("/inventory/adjustments", { json: { productId, delta: 10, reason: "initial count" } })).status).toBe(201);
    const device = await connectDevice("shelf-low", (await sensorToken()).token);
    await publish(device, "devices/shelf-low/inventory", { productId, onHand: 3 });
    const events = await eventsUntil(stack, (e) => e.productId === productId, ["inventory.adjusted", "inventory.low"]);
    expect(events.find((e) => e.kind === "inventory.low")).toMatchObject({ productId, onHand: 3, lowStockThreshold: 5 });
    expect(events.some((e) => e.kind === "inventory.depleted")).toBe(false);
    expect((await stockOf(call, productId)).onHand).toBe(3);
  });

  it("mosquitto_pub publishes a count at QoS 1, and is refused with an api token", async () => {
    const productId = await createStockedProduct(call, 1);
    const sensor = await sensorToken();
    const args = (password: string, count: number) => [
      "-h",
      "127.0.0.1",
      "-p",
      String(stack.gateway.port),
      "-V",
      "mqttv311",
      "-q",
      "1",
      "-u",
      "dock-7",
      "-P",
      password,
      "-t",
      "devices/dock-7/inventory",
      "-m",
      JSON.stringify({ productId, onHand: count }),
    ];
    await run(MOSQUITTO_PUB, args(sensor.token, 17), { timeout: 10_000 });
    await eventually(async () => ((await stockOf(call, productId)).onHand === 17 ? true : undefined));
    const refused = await run(MOSQUITTO_PUB, args(stack.token, 99), { timeout: 10_000 }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused?.code).not.toBe(0);
    expect(refused?.stderr).toMatch(/bad user ?name or password/i);
  });
});

/** mosquitto_pub at QoS 1 as `deviceId`; resolves to its exit code and stderr. */
async function mosquittoPub(deviceId: string, password: string, topic: string, message: unknown): Promise<{ code: number; stderr: string }> {
  const args = [
    "-h",
    "127.0.0.1",
    "-p",
    String(stack.gateway.port),
    "-V",
    "mqttv311",
    "-q",
    "1",
    "-u",
    deviceId,
    "-P",
    password,
    "-t",
    topic,
    "-m",
    JSON.stringify(message),
  ];
  return run(MOSQUITTO_PUB, args, { timeout: 10_000 }).then(
    () => ({ code: 0, stderr: "" }),
    (error: { code: number | string; stderr: string }) => ({ code: typeof error.code === "number" ? error.code : -1, stderr: error.stderr }),
  );
}

describe("mosquitto_pub", () => {
  it("a shipment scan moves the shipment", async () => {
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 5);
    const order = await createOrder(call, customerId, [{ productId, quantity: 1 }]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const trackingNumber = `MOS-${order.id.slice(-8)}`;
    const shipment = await call(`/orders/${order.id}/shipments`, { json: { carrier: "UPS", trackingNumber } });
    expect(shipment.status).toBe(201);
    const sensor = await sensorToken();
    expect(await mosquittoPub("dock-scan", sensor.token, "devices/dock-scan/shipments", { trackingNumber, status: "inTransit", location: "Dock 3" })).toEqual({
      code: 0,
      stderr: "",
    });
    const moved = await eventually(async () => {
      const s = await call(`/shipments/${shipment.body.id}`);
      return s.body.status === "inTransit" ? s.body : undefined;
    });
    expect(moved.timeline.at(-1)).toMatchObject({ status: "inTransit", location: "Dock 3", note: "device dock-scan" });
  });

  it("a revoked token is refused", async () => {
    const sensor = await sensorToken("revoked for mosquitto");
    expect((await call(`/tokens/${sensor.id}`, { method: "DELETE" })).status).toBe(204);
    const refused = await mosquittoPub("dock-revoked", sensor.token, "devices/dock-revoked/telemetry", { t: 1 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/bad user ?name or password/i);
    const stored = await readStream(stack.env.natsUrl, stack.env.topology.ingressStream);
    expect(stored.some((m) => m.json.deviceId === "dock-revoked")).toBe(false);
    expect(await storedReadings("dock-revoked")).toEqual([]);
  });

  it("a publish on another device's topic is refused and nothing is stored", async () => {
    const sensor = await sensorToken();
    const refused = await mosquittoPub("dock-own", sensor.token, "devices/dock-victim/inventory", { productId: "prd_x", onHand: 1 });
    expect(refused.code).not.toBe(0);
    const stored = await readStream(stack.env.natsUrl, stack.env.topology.ingressStream);
    expect(stored.some((m) => m.subject.includes(".devices.dock-victim.") || m.json.deviceId === "dock-own")).toBe(false);
  });
});

describe("shipment scans from devices", () => {
  it("moves the shipment by tracking number, and a delivery scan completes the order", async () => {
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 10);
    const order = await createOrder(call, customerId, [{ productId, quantity: 2 }]);
    expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
    const trackingNumber = `TRK-${order.id.slice(-8)}`;
    const shipment = await call(`/orders/${order.id}/shipments`, { json: { carrier: "DHL", trackingNumber } });
    expect(shipment.status, JSON.stringify(shipment.body)).toBe(201);

    const device = await connectDevice("scanner-1", (await sensorToken()).token);
    await publish(device, "devices/scanner-1/shipments", { trackingNumber, status: "inTransit", location: "Hub Leipzig" });
    const moved = await eventually(async () => {
      const s = await call(`/shipments/${shipment.body.id}`);
      return s.body.status === "inTransit" ? s.body : undefined;
    });
    expect(moved.timeline.at(-1)).toMatchObject({ status: "inTransit", location: "Hub Leipzig", note: "device scanner-1" });

    await publish(device, "devices/scanner-1/shipments", { trackingNumber, status: "delivered", at: new Date().toISOString() });
    await eventually(async () => ((await call(`/orders/${order.id}`)).body.status === "completed" ? true : undefined));
    expect((await call(`/shipments/${shipment.body.id}`)).body.status).toBe("delivered");
    expect(await stockOf(call, productId)).toEqual({ onHand: 8, reserved: 0, available: 8 });
  });
});

describe("bad device messages", () => {
  it("invalid for their channel: refused at the gateway (acknowledged, counted once, never stored); the session and the consumer go on", async () => {
    const productId = await createStockedProduct(call, 3);
    const device = await connectDevice("shelf-bad", (await sensorToken()).token);
    const atGateway = (reason: string) => new RegExp(`waybill_mqtt_messages_dropped_total\\{.*reason="${reason}"`);
    const consumerInvalid = /waybill_device_messages_dropped_total\{.*channel="inventory".*reason="invalid_payload"/;
    const unknown = /waybill_device_messages_dropped_total\{.*channel="inventory".*reason="product_not_found"/;
    const unknownScan = /waybill_device_messages_dropped_total\{.*channel="shipments".*reason="shipment_not_found"/;
    const gatewayBefore = {
      malformed: await metric(stack.gateway.opsPort, atGateway("malformed_json")),
      invalid: await metric(stack.gateway.opsPort, atGateway("invalid_payload")),
    };
    const before = [
      await metric(stack.inventory.opsPort, consumerInvalid),
      await metric(stack.inventory.opsPort, unknown),
      await metric(stack.orders.opsPort, unknownScan),
    ];

    // publish() resolves on PUBACK: every one of these is acknowledged.
    await publish(device, "devices/shelf-bad/inventory", "not json at all");
    await publish(device, "devices/shelf-bad/inventory", { productId, onHand: "many" });
    await publish(device, "devices/shelf-bad/inventory", { productId, onHand: -1 });
    await publish(device, "devices/shelf-bad/shipments", { status: "delivered" });
    await publish(device, "devices/shelf-bad/telemetry", "[1,2]");
    // Valid for the channel, but naming nothing: stored, then dropped by the consumer that applies it.
    await publish(device, "devices/shelf-bad/inventory", { productId: "prd_01jc0000000000000000000000", onHand: 5 });
    await publish(device, "devices/shelf-bad/shipments", { trackingNumber: "NO-SUCH-TRACKING", status: "delivered" });
    // A good message after the bad ones is applied: nothing is stuck behind them.
    await publish(device, "devices/shelf-bad/inventory", { productId, onHand: 11 });
    await eventually(async () => ((await stockOf(call, productId)).onHand === 11 ? true : undefined));
    expect(device.connected).toBe(true);

    expect(await metric(stack.gateway.opsPort, atGateway("malformed_json"))).toBe(gatewayBefore.malformed + 1);
    expect(await metric(stack.gateway.opsPort, atGateway("invalid_payload"))).toBe(gatewayBefore.invalid + 4);
    const stored = (await readStream(stack.env.natsUrl, stack.env.topology.ingressStream)).filter((m) => m.json.deviceId === "shelf-bad");
    expect(stored.map((m) => m.json.payload)).toEqual([
      { productId: "prd_01jc0000000000000000000000", onHand: 5 },
      { trackingNumber: "NO-SUCH-TRACKING", status: "delivered" },
      { productId, onHand: 11 },
    ]);
    // Counted once: the consumers never saw the invalid ones.
    expect(await metric(stack.inventory.opsPort, consumerInvalid)).toBe(before[0]);
    expect(await metric(stack.inventory.opsPort, unknown)).toBe(before[1] + 1);
    await eventually(async () => ((await metric(stack.orders.opsPort, unknownScan)) === before[2] + 1 ? true : undefined));
    // The gateway's metric has exactly one label set: reason, from a fixed list.
    const text = await (await fetch(`http://127.0.0.1:${stack.gateway.opsPort}/metrics`)).text();
    const reasons = [...text.matchAll(/^waybill_mqtt_messages_dropped_total\{(.*)\} /gm)].map((m) => m[1].replace(/,?service="[^"]*"/, ""));
    expect(reasons.sort()).toEqual(['reason="invalid_payload"', 'reason="malformed_json"', 'reason="oversized"', 'reason="unknown_channel"']);
  });
});

describe("what is stored and forwarded", () => {
  it("messages on unknown channels are acknowledged, counted and neither stored nor forwarded; the session stays", async () => {
    const device = await connectDevice("chan-1", (await sensorToken()).token);
    await device.subscribeAsync("devices/chan-1/commands/#", { qos: 1 });
    const received: string[] = [];
    device.on("message", (topic) => received.push(topic));
    const unknown = /waybill_mqtt_messages_dropped_total\{.*reason="unknown_channel"/;
    const malformed = /waybill_mqtt_messages_dropped_total\{.*reason="malformed_json"/;
    const before = [await metric(stack.gateway.opsPort, unknown), await metric(stack.gateway.opsPort, malformed)];

    await publish(device, "devices/chan-1/foo", { a: 1 });
    await publish(device, "devices/chan-1/telemetry/temp_1", { c: 4 });
    await publish(device, "devices/chan-1/commands/open", { by: "the device itself" });
    await publish(device, "devices/chan-1/commands/open", "not json");
    await publish(device, "devices/chan-1/inventory", "not json either");
    await publish(device, "devices/chan-1/telemetry", { ok: true });
    await new Promise((r) => setTimeout(r, 300));

    expect(await metric(stack.gateway.opsPort, unknown)).toBe(before[0] + 4);
    expect(await metric(stack.gateway.opsPort, malformed)).toBe(before[1] + 1);
    expect(received).toEqual([]);
    expect(device.connected).toBe(true);
    // Only the telemetry is stored, as its device.reading event; nothing of chan-1 in INGRESS.
    expect((await storedReadings("chan-1")).map((m) => m.json.reading)).toEqual([{ ok: true }]);
    const ingress = await readStream(stack.env.natsUrl, stack.env.topology.ingressStream);
    expect(ingress.filter((m) => m.json.deviceId === "chan-1")).toEqual([]);
  });
});

describe("refusals", () => {
  it.each([
    ["everything", "#"],
    ["every device", "devices/+/commands/#"],
    ["its own stock channel", "devices/sub-own/inventory"],
    ["its whole subtree", "devices/sub-own/#"],
  ])("refuses subscribing to %s (%s) by closing the connection", async (_what, filter) => {
    const device = await connectDevice("sub-own", (await sensorToken()).token);
    await expect(device.subscribeAsync(filter, { qos: 1 })).rejects.toThrow(/closed/i);
    expect(device.connected).toBe(false);
  });

  it("refuses api tokens and unknown sensor tokens with bad username or password", async () => {
    await expect(connectDevice("dev-api", stack.token)).rejects.toThrow(/Bad username or password/i);
    await expect(connectDevice("dev-unknown", "sensor-not-a-real-token-0123456789")).rejects.toThrow(/Bad username or password/i);
    const cli = await issueToken(stack.env.databaseUrl, "cli");
    await expect(connectDevice("dev-cli", cli.token)).rejects.toThrow(/Bad username or password/i);
  });

  it("closes a revoked token's live connection within a second and refuses it afterwards", async () => {
    const sensor = await sensorToken("to revoke");
    const device = await connectDevice("dev-revoked", sensor.token);
    const closing = closed(device);
    const revokedAt = Date.now();
    expect((await call(`/tokens/${sensor.id}`, { method: "DELETE" })).status).toBe(204);
    await closing;
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    await expect(connectDevice("dev-revoked", sensor.token)).rejects.toThrow(/Bad username or password/i);
  });

  it("refuses publishing or subscribing under another device's topic (the connection closes) and stores nothing", async () => {
    const sensor = await sensorToken();
    const subscriber = await connectDevice("dev-own", sensor.token);
    expect((await subscriber.subscribeAsync("devices/dev-own/commands/#", { qos: 1 }))[0].qos).toBe(1);
    // Subscribing outside its own commands is refused by closing the connection.
    await expect(subscriber.subscribeAsync("devices/other/commands/#", { qos: 1 })).rejects.toThrow(/closed/i);
    const device = await connectDevice("dev-own", sensor.token);
    const closing = closed(device);
    void device.publishAsync("devices/other/inventory", JSON.stringify({ productId: "prd_x", onHand: 1 }), { qos: 1 }).catch(() => {});
    await closing;
    const stored = await readStream(stack.env.natsUrl, stack.env.topology.ingressStream);
    expect(stored.some((m) => m.subject.includes(".devices.other."))).toBe(false);
  });
});

describe("device registry", () => {
  it("GET /v1/devices shows connected and lastSeenAt, and device.connected / device.disconnected are emitted", async () => {
    const sensor = await sensorToken();
    const device = await connectDevice("reg-1", sensor.token);
    const connectedAt = Date.now();
    await publish(device, "devices/reg-1/telemetry", { temperature: 4.5 });
    const listed = await eventually(async () => {
      const answer = await call("/devices");
      const row = answer.body.data.find((d: Device) => d.deviceId === "reg-1");
      return row?.connected && Date.parse(row.lastSeenAt) >= connectedAt - 1_000 ? row : undefined;
    });
    expect(listed).toMatchObject({ id: expect.stringMatching(/^dev_/), tokenId: sensor.id, connected: true });

    await device.endAsync();
    await eventually(async () => {
      const row = (await call("/devices")).body.data.find((d: Device) => d.deviceId === "reg-1");
      return row && !row.connected ? row : undefined;
    });
    const events = await eventsUntil(stack, (e) => e.deviceId === "reg-1", ["device.connected", "device.reading", "device.disconnected"]);
    expect(events.find((e) => e.kind === "device.reading")).toMatchObject({ reading: { temperature: 4.5 } });
    expect(events.find((e) => e.kind === "device.connected")).toMatchObject({ tokenId: sensor.id });
  });

  it("a sensor token may not read the list; a cli token may", async () => {
    const sensor = await sensorToken();
    expect((await request(`${stack.baseUrl}/devices`, { token: sensor.token })).status).toBe(403);
    const cli = await issueToken(stack.env.databaseUrl, "cli");
    expect((await request(`${stack.baseUrl}/devices`, { token: cli.token })).status).toBe(200);
  });
});

describe("telemetry an earlier gateway stored in INGRESS", () => {
  it("still becomes a device.reading event, with an id derived from the stored message", async () => {
    // Gateways before 2026-11-27 stored telemetry in INGRESS for their readings consumer; after
    // an upgrade (or beside an older replica) what they stored is still turned into events.
    const { tenantId } = await issueToken(stack.env.databaseUrl, "sensor");
    const receivedAt = new Date().toISOString();
    const nc = await connect({ servers: stack.env.natsUrl });
    try {
      const envelope = { tenantId, deviceId: "legacy-1", tokenId: "tok_legacy", channel: ["telemetry"], receivedAt, payload: { legacy: true } };
      const subject = stack.env.topology.ingressSubject(tenantId, "devices", "legacy-1", "telemetry");
      await jetstream(nc).publish(subject, JSON.stringify(envelope), { msgID: "dm-legacy-1" });
    } finally {
      await nc.close();
    }
    const readings = await eventsUntil(stack, (e) => e.deviceId === "legacy-1", ["device.reading"]);
    expect(readings).toHaveLength(1);
    expect(readings[0]).toMatchObject({ reading: { legacy: true }, receivedAt, time: receivedAt });
    // Derived from the stored message, so handling it again would publish the same event.
    expect(readings[0].id).toBe(derivedId("evt", `${stack.env.topology.ingressStream}:dm-legacy-1`, Date.parse(receivedAt)));
    expect((await storedReadings("legacy-1")).map((m) => m.headers["Nats-Msg-Id"])).toEqual([readings[0].id]);
  });
});

describe("POST /v1/devices/{deviceId}/readings", () => {
  it("stores the message in INGRESS like MQTT and answers 202; inventory applies it", async () => {
    const productId = await createStockedProduct(call, 2);
    const sensor = await sensorToken();
    const answer = await request(`${stack.baseUrl}/devices/http-shelf/readings`, {
      token: sensor.token,
      json: { channel: "inventory", payload: { productId, onHand: 23 } },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toMatchObject({ messageId: expect.any(String), deviceId: "http-shelf", channel: "inventory", receivedAt: expect.any(String) });
    await eventually(async () => ((await stockOf(call, productId)).onHand === 23 ? true : undefined));
    const stored = (await readStream(stack.env.natsUrl, stack.env.topology.ingressStream)).find((m) => m.headers["Nats-Msg-Id"] === answer.body.messageId);
    expect(stored?.subject).toBe(stack.env.topology.ingressSubject(stored!.json.tenantId, "devices", "http-shelf", "inventory"));
    expect(stored?.json).toMatchObject({ deviceId: "http-shelf", tokenId: sensor.id, channel: ["inventory"], payload: { productId, onHand: 23 } });
    // Seen over HTTP: in the registry, not connected.
    await eventually(async () =>
      (await call("/devices")).body.data.find((d: Device) => d.deviceId === "http-shelf" && !d.connected && d.lastSeenAt) ? true : undefined,
    );
  });

  it("validates the body (422), refuses tokens without devices:publish (403) and replays by Idempotency-Key", async () => {
    const sensor = await sensorToken();
    const post = (body: unknown, headers: Record<string, string> = {}, token = sensor.token) =>
      request(`${stack.baseUrl}/devices/http-2/readings`, { token, json: body, headers });
    expect((await post({ channel: "inventory", payload: { productId: "prd_1", onHand: -3 } })).status).toBe(422);
    expect((await post({ channel: "weather", payload: {} })).status).toBe(422);
    expect((await post({ channel: "telemetry" })).status).toBe(422);
    expect((await request(`${stack.baseUrl}/devices/bad.id/readings`, { token: sensor.token, json: { channel: "telemetry", payload: {} } })).status).toBe(422);
    const cli = await issueToken(stack.env.databaseUrl, "cli");
    expect((await post({ channel: "telemetry", payload: { t: 1 } }, {}, cli.token)).status).toBe(403);

    const first = await post({ channel: "telemetry", payload: { t: 2 } }, { "idempotency-key": "reading-1" });
    const again = await post({ channel: "telemetry", payload: { t: 2 } }, { "idempotency-key": "reading-1" });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.messageId).toBe(first.body.messageId);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    // Telemetry is stored as its device.reading event, once, under the message's id.
    const stored = (await storedReadings("http-2")).filter((m) => m.headers["Nats-Msg-Id"] === first.body.messageId);
    expect(stored.map((m) => m.json.reading)).toEqual([{ t: 2 }]);
    expect((await post({ channel: "telemetry", payload: { t: 3 } }, { "idempotency-key": "reading-1" })).status).toBe(422);
  });
});

describe("tenant isolation", () => {
  it("a tenant sees only its own devices, and its devices cannot touch another tenant's stock", async () => {
    const productId = await createStockedProduct(call, 4);
    const other = await otherTenant(stack);
    const otherSensor = await issueToken(stack.env.databaseUrl, "sensor", { tenantId: other.tenantId });
    const device = await connectDevice("iso-1", otherSensor.token);
    const notFound = /waybill_device_messages_dropped_total\{.*channel="inventory".*reason="product_not_found"/;
    const droppedBefore = await metric(stack.inventory.opsPort, notFound);
    // Tenant B's device names tenant A's product: for B that product does not exist.
    await publish(device, "devices/iso-1/inventory", { productId, onHand: 99 });
    await publish(device, "devices/iso-1/telemetry", { secret: "b-only" });
    const events = await eventsUntil(stack, (e) => e.deviceId === "iso-1", ["device.reading"]);
    expect(events.every((e) => e.reading === undefined || e.reading.secret === "b-only")).toBe(true);
    const subjects = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter((m) => m.json.deviceId === "iso-1").map((m) => m.subject);
    expect(subjects.every((s) => s.includes(`.${other.tenantId}.`))).toBe(true);

    await eventually(async () =>
      (await request(`${stack.baseUrl}/devices`, { token: other.token })).body.data.some((d: Device) => d.deviceId === "iso-1") ? true : undefined,
    );
    const mine = (await call("/devices")).body.data.map((d: Device) => d.deviceId);
    expect(mine).not.toContain("iso-1");
    const theirs = (await request(`${stack.baseUrl}/devices`, { token: other.token })).body.data.map((d: Device) => d.deviceId);
    expect(theirs).toEqual(["iso-1"]);
    await eventually(async () => ((await metric(stack.inventory.opsPort, notFound)) === droppedBefore + 1 ? true : undefined));
    expect((await stockOf(call, productId)).onHand).toBe(4);
  });
});
