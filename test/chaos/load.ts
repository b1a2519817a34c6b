// The steady load the faults happen under: order creations (every other one moved to ready, which
// reserves stock), stock adjustments, and device telemetry over MQTT (QoS 1), each at a bounded
// pace. Every change is stamped with when it was acknowledged (201, PUBACK), so the report can say
// which fault's window it fell in; requests that get no answer are counted, not retried as new.
import { randomBytes } from "node:crypto";
import mqtt from "mqtt";
import { request } from "../support/http-client.js";
import { issueToken } from "../support/tokens.js";

export interface Change {
  kind: "order" | "adjustment" | "reading";
  /** The entity's id (order id, adjustment id) or the reading's number. */
  id: string;
  at: number;
}

/** One API request of the load: when it began, how long until its answer, the status (null: none). */
export interface TimedRequest {
  at: number;
  ms: number;
  status: number | null;
}

export interface LoadHandle {
  productId: string;
  changes: Change[];
  requests: TimedRequest[];
  /** Requests answered neither 2xx nor a refusal (connection refused or reset, 5xx while a service restarts). */
  unanswered: number;
  refused: Map<string, number>;
  stop(): Promise<void>;
}

export interface LoadOptions {
  baseUrl: string;
  token: string;
  databaseUrl: string;
  mqttPort: number;
  /** Pause between one client's requests. */
  paceMs?: number;
  /** A request without an answer this long is given up (counted unanswered, its time kept). */
  requestTimeoutMs?: number;
  deviceId?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startLoad(options: LoadOptions): Promise<LoadHandle> {
  const paceMs = options.paceMs ?? 25;
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const requests: TimedRequest[] = [];
  const call = async (path: string, json?: unknown) => {
    const at = Date.now();
    try {
      const answer = await request(`${options.baseUrl}${path}`, { token: options.token, json, signal: AbortSignal.timeout(timeoutMs) });
      requests.push({ at, ms: Date.now() - at, status: answer.status });
      return answer;
    } catch (error) {
      requests.push({ at, ms: Date.now() - at, status: null });
      throw error;
    }
  };
  const product = await call("/products", { sku: `CHAOS-${randomBytes(4).toString("hex")}`, name: "Chaos product" });
  const customer = await call("/customers", { name: "Chaos customer" });
  if (product.status !== 201 || customer.status !== 201) throw new Error(`load setup failed: ${product.status} ${customer.status}`);
  const productId = product.body.id as string;
  const customerId = customer.body.id as string;
  // Enough stock that reservations never run out during the run.
  await call("/inventory/adjustments", { productId, delta: 1_000_000, reason: "chaos initial stock" });

  const handle: LoadHandle = { productId, changes: [], requests, unanswered: 0, refused: new Map(), stop: async () => {} };
  let stopping = false;
  const refusal = (status: number, code?: string) => {
    const key = `${status} ${code ?? ""}`.trim();
    handle.refused.set(key, (handle.refused.get(key) ?? 0) + 1);
  };
  /** One client's loop: `step` returns false when its request got no usable answer. */
  const client = async (step: () => Promise<void>) => {
    while (!stopping) {
      try {
        await step();
      } catch {
        handle.unanswered += 1;
      }
      await sleep(paceMs);
    }
  };

  let n = 0;
  const orders = client(async () => {
    const created = await call("/orders", {
      shortId: `CH-${randomBytes(5).toString("hex")}`,
      customerId,
      currency: "EUR",
      orderItems: [{ productId, quantity: 1, price: "1.00" }],
    });
    if (created.status !== 201) return refusal(created.status, created.body?.code);
    handle.changes.push({ kind: "order", id: created.body.id, at: Date.now() });
    if (n++ % 2 === 0) {
      const ready = await call(`/orders/${created.body.id}/status`, { status: "ready" });
      if (ready.status !== 200) refusal(ready.status, ready.body?.code);
    }
  });
  const adjustments = client(async () => {
    const adjusted = await call("/inventory/adjustments", { productId, delta: 1, reason: "chaos" });
    if (adjusted.status !== 201) return refusal(adjusted.status, adjusted.body?.code);
    handle.changes.push({ kind: "adjustment", id: adjusted.body.id, at: Date.now() });
  });

  const deviceId = options.deviceId ?? `chaos-${randomBytes(3).toString("hex")}`;
  const sensor = await issueToken(options.databaseUrl, "sensor");
  const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${options.mqttPort}`, {
    username: deviceId,
    password: sensor.token,
    clientId: deviceId,
    protocolVersion: 4,
    clean: false, // unacknowledged publishes are resent under their packet id after a reconnect
    reconnectPeriod: 250,
    connectTimeout: 5_000,
  });
  device.on("error", () => {});
  let reading = 0;
  const readings = client(async () => {
    const r = reading++;
    await device.publishAsync(`devices/${deviceId}/telemetry`, JSON.stringify({ chaos: r }), { qos: 1 });
    handle.changes.push({ kind: "reading", id: String(r), at: Date.now() });
  });

  handle.stop = async () => {
    stopping = true;
    await Promise.all([orders, adjustments, readings]);
    await device.endAsync();
  };
  return handle;
}
