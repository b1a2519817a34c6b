// A running system with the data a console user would have: two products (one with 0 available),
// a customer, orders with lines of both products (one in progress with a shipment on its way),
// a healthy and a failing webhook with deliveries, an API token, and a device connected over MQTT
// with readings. Seeded through the public API only. Used by the console's browser tests and by
// `npm run audit:console`; no vitest here.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import mqtt, { type MqttClient } from "mqtt";
import { eventually, request } from "./http-client.js";
import { ROOT } from "./processes.js";
import { startReceiver, type TestReceiver } from "./receiver.js";
import { startStack, type Stack } from "./stack.js";

export const CONSOLE_ADMIN = { email: "console-admin@example.com", password: "console-password-123" };

export interface ConsoleSeed {
  customer: { id: string; name: string };
  /** Its only stock is reserved by the order in progress: 3 on hand, 3 reserved, 0 available. */
  emptyProduct: { id: string; sku: string; name: string };
  fullProduct: { id: string; sku: string; name: string };
  /** In progress, lines of both products, a shipment in transit. */
  order: { id: string; shortId: string };
  pendingOrder: { id: string; shortId: string };
  healthyHook: { id: string; name: string };
  failingHook: { id: string; name: string };
  failedExecutionId: string;
  /** The order's order.status.changed event to "inProgress": an event page with deliveries to both hooks. */
  statusEventId: string;
  device: { id: string; deviceId: string; tokenId: string };
  shipment: { id: string; trackingNumber: string };
}

export interface ConsoleSystem {
  stack: Stack;
  url: string;
  seed: ConsoleSeed;
  healthy: TestReceiver;
  failing: TestReceiver;
  api<T = unknown>(method: string, pathname: string, body?: unknown): Promise<T>;
  stop(): Promise<void>;
}

/** Builds the console when dist/ is missing (a fresh clone builds it through `npm ci` already). */
export async function ensureConsoleBuilt(): Promise<void> {
  if (!existsSync(path.join(ROOT, "clients/console/dist/index.html"))) {
    await promisify(execFile)("npm", ["run", "build", "-w", "@waybill/console"], { cwd: ROOT });
  }
}

export async function startConsoleSystem(): Promise<ConsoleSystem> {
  await ensureConsoleBuilt();
  const healthy = await startReceiver(() => ({
    status: 200,
    body: '{"received":true}',
    headers: { "content-type": "application/json", "x-receiver": "warehouse" },
  }));
  const failing = await startReceiver(() => ({ status: 503, body: "<h1>maintenance</h1>", headers: { "x-receiver": "erp" } }));
  const stack = await startStack({
    extraEnv: {
      BOOTSTRAP_ADMIN_EMAIL: CONSOLE_ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: CONSOLE_ADMIN.password,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      WEBHOOK_RETRY_SCHEDULE: "200ms",
    },
  });
  const devices: MqttClient[] = [];
  const api = async <T = unknown>(method: string, pathname: string, body?: unknown): Promise<T> => {
    const answer = await request<T>(`${stack.baseUrl}${pathname}`, { method, token: stack.token, ...(body === undefined ? {} : { json: body }) });
    if (answer.status >= 300) throw new Error(`${method} ${pathname}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  try {
    const seed = await seedConsoleData(stack, api, healthy.url, failing.url, devices);
    return {
      stack,
      url: stack.edge.url,
      seed,
      healthy,
      failing,
      api,
      async stop() {
        for (const device of devices) await device.endAsync(true).catch(() => {});
        await stack.stop();
        await healthy.close();
        await failing.close();
      },
    };
  } catch (error) {
    for (const device of devices) await device.endAsync(true).catch(() => {});
    await stack.stop();
    await healthy.close();
    await failing.close();
    throw error;
  }
}

async function seedConsoleData(
  stack: Stack,
  api: <T = unknown>(method: string, pathname: string, body?: unknown) => Promise<T>,
  healthyUrl: string,
  failingUrl: string,
  devices: MqttClient[],
): Promise<ConsoleSeed> {
  const healthyHook = await api<{ id: string; name: string }>("POST", "/hooks", { name: "Warehouse sync", url: healthyUrl, on: "order.created" });
  const failingHook = await api<{ id: string; name: string }>("POST", "/hooks", { name: "ERP bridge", url: failingUrl, on: "order.status.changed" });
  const customer = await api<{ id: string; name: string }>("POST", "/customers", { name: "Ada Lovelace Ltd", email: "orders@lovelace.example" });
  const emptyProduct = await api<{ id: string; sku: string; name: string }>("POST", "/products", { sku: "WID-1", name: "Blue widget" });
  const fullProduct = await api<{ id: string; sku: string; name: string }>("POST", "/products", { sku: "GAD-2", name: "Brass gadget", lowStockThreshold: 5 });
  await api("POST", "/inventory/adjustments", { productId: emptyProduct.id, delta: 3, reason: "initial count" });
  await api("POST", "/inventory/adjustments", { productId: fullProduct.id, delta: 40, reason: "initial count" });
  const order = await api<{ id: string; shortId: string }>("POST", "/orders", {
    shortId: "ORD-1001",
    customerId: customer.id,
    currency: "EUR",
    orderItems: [
      { productId: emptyProduct.id, quantity: 3, price: "12.50" },
      { productId: fullProduct.id, quantity: 2, price: "4.25" },
    ],
  });
  await api("POST", `/orders/${order.id}/status`, { status: "ready" });
  await api("POST", `/orders/${order.id}/status`, { status: "inProgress" });
  const shipment = await api<{ id: string; trackingNumber: string }>("POST", `/orders/${order.id}/shipments`, {
    carrier: "DHL",
    trackingNumber: "JD0146000033",
  });
  await api("POST", `/shipments/${shipment.id}/status`, { status: "inTransit", location: "Leipzig hub" });
  const pendingOrder = await api<{ id: string; shortId: string }>("POST", "/orders", {
    shortId: "ORD-1002",
    customerId: customer.id,
    currency: "EUR",
    orderItems: [{ productId: fullProduct.id, quantity: 1, price: "4.25" }],
  });
  const cancelled = await api<{ id: string }>("POST", "/orders", {
    shortId: "ORD-1003",
    customerId: customer.id,
    currency: "EUR",
    orderItems: [{ productId: fullProduct.id, quantity: 5, price: "4.00" }],
  });
  await api("POST", `/orders/${cancelled.id}/status`, { status: "cancelled" });
  await api("POST", "/tokens", { name: "ERP integration", type: "machine" });

  const sensor = await api<{ id: string; token: string }>("POST", "/tokens", { name: "Shelf sensors", type: "sensor" });
  const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${stack.gateway.port}`, {
    username: "shelf-12",
    password: sensor.token,
    reconnectPeriod: 0,
    protocolVersion: 4,
    connectTimeout: 5_000,
  });
  devices.push(device);
  for (const [i, celsius] of [4.1, 4.4, 3.9].entries()) {
    await device.publishAsync("devices/shelf-12/telemetry", JSON.stringify({ temperatureC: celsius, humidity: 41 + i }), { qos: 1 });
  }

  // What the screens show must be there before a test looks: readings logged, both hooks tried.
  await eventually(async () => {
    const events = await api<{ data: unknown[] }>("GET", "/events?kind=device.reading&limit=10");
    return events.data.length >= 3 ? true : undefined;
  }, 20_000);
  const registered = await eventually(async () => {
    const list = await api<{ data: { id: string; deviceId: string; tokenId: string; connected: boolean }[] }>("GET", "/devices");
    return list.data.find((d) => d.deviceId === "shelf-12" && d.connected);
  }, 20_000);
  await eventually(async () => ((await api<{ data: unknown[] }>("GET", `/hooks/${healthyHook.id}/executions`)).data.length >= 2 ? true : undefined), 20_000);
  const failed = await eventually(async () => {
    const list = await api<{ data: { id: string; outcome: string }[] }>("GET", `/hooks/${failingHook.id}/executions`);
    return list.data.find((e) => e.outcome === "failed");
  }, 20_000);
  const statusEvent = await eventually(async () => {
    const list = await api<{ data: { id: string; currentOrderStatus?: string }[] }>("GET", `/events?kind=order.status.changed&entityId=${order.id}`);
    return list.data.find((e) => e.currentOrderStatus === "inProgress");
  }, 20_000);
  return {
    customer,
    emptyProduct,
    fullProduct,
    order,
    pendingOrder,
    healthyHook,
    failingHook,
    failedExecutionId: failed.id,
    statusEventId: statusEvent.id,
    device: { id: registered.id, deviceId: registered.deviceId, tokenId: registered.tokenId },
    shipment,
  };
}
