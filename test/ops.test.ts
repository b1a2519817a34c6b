// /healthz, /readyz and /metrics answer on every service's own port.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadMqttGatewayConfig } from "../services/mqtt-gateway/config.js";
import { startMqttGateway, type MqttGatewayHandle } from "../services/mqtt-gateway/service.js";
import { request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let gateway: MqttGatewayHandle;
beforeAll(async () => {
  // Short check interval so a stopped backend shows in /readyz within the test.
  stack = await startStack({ extraEnv: { READINESS_CHECK_INTERVAL_MS: "200", READINESS_CHECK_TIMEOUT_MS: "500" } });
  gateway = await startMqttGateway(loadMqttGatewayConfig({ ...stack.serviceEnv, MQTT_PORT: "0" }));
});
afterAll(async () => {
  await gateway?.stop();
  await stack?.stop();
});

function opsUrls() {
  return {
    edge: `http://127.0.0.1:${stack.edge.opsPort}`,
    identity: `http://127.0.0.1:${stack.identity.opsPort}`,
    inventory: `http://127.0.0.1:${stack.inventory.opsPort}`,
    orders: `http://127.0.0.1:${stack.orders.opsPort}`,
    dispatcher: `http://127.0.0.1:${stack.dispatcher.opsPort}`,
    "mqtt-gateway": `http://127.0.0.1:${gateway.opsPort}`,
  };
}

describe("ops endpoints", () => {
  it("every service is live, ready and exposes Prometheus metrics without a token", async () => {
    for (const [service, base] of Object.entries(opsUrls())) {
      const health = await request(`${base}/healthz`);
      expect(health.status, service).toBe(200);
      expect(health.body).toMatchObject({ status: "ok", service });

      const ready = await request(`${base}/readyz`);
      expect(ready.status, service).toBe(200);
      expect(ready.body.status).toBe("ready");
      expect(
        Object.values(ready.body.checks).every((v) => v === "ok"),
        service,
      ).toBe(true);

      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get("content-type")).toContain("text/plain");
      expect(await metrics.text()).toContain(`process_cpu_user_seconds_total{service="${service}"}`);
    }
  });

  it("the dispatcher counts the events it consumed", async () => {
    // Orders name an existing customer of their tenant.
    const customer = await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Ops Customer" } });
    const productId = (
      await request(`${stack.baseUrl}/products`, {
        token: stack.token,
        json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
      })
    ).body.id;
    const created = await request(`${stack.baseUrl}/orders`, {
      token: stack.token,
      json: { shortId: "OPS-1", customerId: customer.body.id, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "1" }] },
    });
    expect(created.status).toBe(201);
    const deadline = Date.now() + 10_000;
    let text = "";
    while (Date.now() < deadline) {
      text = await (await fetch(`${opsUrls().dispatcher}/metrics`)).text();
      if (/waybill_dispatcher_events_received_total\{kind="order.created",service="dispatcher"\} 1/.test(text)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(text).toMatch(/waybill_dispatcher_events_received_total\{kind="order.created",service="dispatcher"\} 1/);
  });

  it("the edge's public port answers probes but never serves /metrics", async () => {
    expect((await request(`${stack.edge.url}/healthz`)).status).toBe(200);
    expect((await request(`${stack.edge.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${stack.edge.url}/metrics`)).status).not.toBe(200);
  });

  it("a backend down is reported by the edge without taking the edge out of rotation", async () => {
    await stack.inventory.stop();
    let ready = await request(`${opsUrls().edge}/readyz`);
    const deadline = Date.now() + 10_000;
    while (ready.body.checks.inventory === "ok" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await request(`${opsUrls().edge}/readyz`);
    }
    expect(ready.body.checks.inventory).not.toBe("ok");
    expect(ready.body.checks.identity).toBe("ok");
    expect(ready.status).toBe(200);
    // A read that needs inventory is a 503 problem, not a hang or a 500.
    const products = await request(`${stack.baseUrl}/products`, { token: stack.token });
    expect(products.status).toBe(503);
    expect(products.body.code).toBe("upstream_unavailable");
  });
});
