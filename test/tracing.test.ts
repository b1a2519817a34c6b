// OpenTelemetry across the real services: with OTEL_EXPORTER_OTLP_ENDPOINT set, an order's request
// is one trace from the edge's HTTP span through gRPC (client and server), the outbox write and
// its publish, the dispatcher's consume and the delivery's POST, whose traceparent (what the
// webhook receiver gets) is the POST span itself; a device's MQTT publish starts a trace that
// reaches the consumer of the event it caused. Without the variable no SDK or exporter exists.
import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tracingState } from "@waybill/platform/tracing.js";
import { client, createCustomer, createOrder, createStockedProduct, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./support/otlp-receiver.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type ReceivedRequest, type TestReceiver } from "./webhooks-fixtures.js";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe("tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)", () => {
  it("loads no SDK and creates no exporter; the client's trace still reaches the receiver's traceparent", async () => {
    const stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
    const receiver = await startReceiver();
    try {
      const call = client(stack);
      await createHook(call, { url: receiver.url, on: "order.created" });
      const customerId = await createCustomer(call);
      const productId = await createStockedProduct(call, 1);
      const clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
      const answer = await call("/orders", {
        json: { shortId: `ORD-OFF-${Date.now()}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "2.50" }] },
        headers: { traceparent: `00-${clientTrace}-00f067aa0ba902b7-01` },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      const [webhook] = await receiver.waitFor(1);
      expect(webhook.json).toMatchObject({ kind: "order.created", orderId: answer.body.id });
      expect(webhook.headers.traceparent).toMatch(new RegExp(`^00-${clientTrace}-[0-9a-f]{16}-01$`));
      expect(tracingState()).toEqual({ sdkLoaded: false, services: [] });
    } finally {
      await stack.stop();
      await receiver.close();
    }
  });
});

describe("tracing on", () => {
  let otlp: OtlpReceiver;
  let receiver: TestReceiver;
  let stack: Stack;
  let call: Call;
  let device: MqttClient | undefined;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startReceiver();
    // The SDK's own variable: export every 100 ms instead of every 5 s.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
    stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } });
    call = client(stack);
  });
  afterAll(async () => {
    await device?.endAsync(true).catch(() => {});
    await stack?.stop();
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    await receiver?.close();
    await otlp?.close();
  });

  /** The webhook of `kind` matching `select`, once delivered. */
  const delivered = (kind: string, select: (event: Record<string, unknown>) => boolean): Promise<ReceivedRequest> =>
    eventually(async () => receiver.received.find((r) => r.json?.kind === kind && select(r.json)), 20_000);

  /** The spans of one trace once it is whole: one root, every other span's parent in it, `until` true. */
  const wholeTrace = (traceId: string, until: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> =>
    eventually(async () => {
      const spans = otlp.spans.filter((s) => s.traceId === traceId);
      const ids = new Set(spans.map((s) => s.spanId));
      const roots = spans.filter((s) => s.parentSpanId === "");
      const orphans = spans.filter((s) => s.parentSpanId !== "" && !ids.has(s.parentSpanId));
      return roots.length === 1 && orphans.length === 0 && until(spans) ? spans : undefined;
    }, 20_000);

  const has = (spans: ReceivedSpan[], service: string, kind: number, name: string | RegExp) =>
    spans.some((s) => s.service === service && s.kind === kind && (typeof name === "string" ? s.name === name : name.test(s.name)));

  it("starts one tracer per service, each with its own service.name", () => {
    expect(tracingState().sdkLoaded).toBe(true);
    expect(tracingState().services.sort()).toEqual(["dispatcher", "edge", "identity", "inventory", "mqtt-gateway", "orders"]);
  });

  it("follows an order from the edge through gRPC, the outbox and NATS to the delivery, whose traceparent continues it", async () => {
    await createHook(call, { url: receiver.url, on: "order.created" });
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 5);
    const order = await createOrder(call, customerId, [{ productId, quantity: 1 }]);

    const webhook = await delivered("order.created", (e) => e.orderId === order.id);
    const match = TRACEPARENT.exec(String(webhook.headers.traceparent));
    expect(match, String(webhook.headers.traceparent)).not.toBeNull();
    const [, traceId, postSpanId] = match!;

    const spans = await wholeTrace(traceId, (all) => all.some((s) => s.spanId === postSpanId));
    const describe = spans.map((s) => `${s.service} ${s.kind} ${s.name}`).join("\n");
    // The root is the edge's HTTP server span, named by the route.
    const root = spans.find((s) => s.parentSpanId === "")!;
    expect(root).toMatchObject({ service: "edge", kind: SPAN_KIND.server, name: "POST /v1/orders" });
    expect(root.attributes).toMatchObject({ "http.request.method": "POST", "http.route": "/v1/orders", "http.response.status_code": 201 });
    expect(has(spans, "edge", SPAN_KIND.client, /^waybill\.orders\.v1\.OrdersService\/CreateOrders?$/), describe).toBe(true);
    expect(has(spans, "orders", SPAN_KIND.server, /^waybill\.orders\.v1\.OrdersService\/CreateOrders?$/), describe).toBe(true);
    expect(has(spans, "orders", SPAN_KIND.producer, "outbox write"), describe).toBe(true);
    expect(has(spans, "orders", SPAN_KIND.producer, /^send /), describe).toBe(true);
    expect(has(spans, "dispatcher", SPAN_KIND.consumer, /^process /), describe).toBe(true);
    expect(has(spans, "dispatcher", SPAN_KIND.internal, "deliver order.created"), describe).toBe(true);
    // The receiver's traceparent names the delivery's own HTTP client span.
    const post = spans.find((s) => s.spanId === postSpanId)!;
    expect(post).toMatchObject({ service: "dispatcher", kind: SPAN_KIND.client, name: "POST" });
    expect(post.attributes).toMatchObject({ "http.response.status_code": 200, "server.address": "127.0.0.1" });

    // Each gRPC server span is the child of a client span of the caller.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    for (const server of spans.filter((s) => s.kind === SPAN_KIND.server && s.service !== "edge")) {
      expect(byId.get(server.parentSpanId), `${server.service} ${server.name}`).toMatchObject({ kind: SPAN_KIND.client, name: server.name });
    }
  });

  it("follows a device's MQTT publish from the gateway to the consumer of the event it caused", async () => {
    await createHook(call, { url: receiver.url, on: "device.reading" });
    const sensor = await call("/tokens", { json: { name: "traced sensor", type: "sensor" } });
    expect(sensor.status, JSON.stringify(sensor.body)).toBe(201);
    device = await mqtt.connectAsync(`mqtt://127.0.0.1:${stack.gateway.port}`, {
      username: "traced-1",
      password: sensor.body.token,
      reconnectPeriod: 0,
      protocolVersion: 4,
      connectTimeout: 5_000,
    });
    await device.publishAsync("devices/traced-1/telemetry", JSON.stringify({ temperature: 4.5 }), { qos: 1 });

    const webhook = await delivered("device.reading", (e) => e.deviceId === "traced-1");
    const match = TRACEPARENT.exec(String(webhook.headers.traceparent));
    expect(match, String(webhook.headers.traceparent)).not.toBeNull();
    const [, traceId, postSpanId] = match!;

    const spans = await wholeTrace(traceId, (all) => all.some((s) => s.spanId === postSpanId));
    const describe = spans.map((s) => `${s.service} ${s.kind} ${s.name}`).join("\n");
    const root = spans.find((s) => s.parentSpanId === "")!;
    expect(root).toMatchObject({ service: "mqtt-gateway", kind: SPAN_KIND.server, name: "MQTT PUBLISH telemetry" });
    expect(root.attributes).toMatchObject({ "waybill.device.id": "traced-1", "messaging.system": "mqtt" });
    // Stored as its device.reading event (the PUBACK waits for it), with no consumer in between...
    expect(has(spans, "mqtt-gateway", SPAN_KIND.producer, /^send /), describe).toBe(true);
    expect(has(spans, "mqtt-gateway", SPAN_KIND.producer, "outbox write"), describe).toBe(true);
    expect(has(spans, "mqtt-gateway", SPAN_KIND.consumer, /^process /), describe).toBe(false);
    // ...and taken by the dispatcher, which delivers it.
    expect(has(spans, "dispatcher", SPAN_KIND.consumer, /^process /), describe).toBe(true);
    expect(spans.find((s) => s.spanId === postSpanId)).toMatchObject({ service: "dispatcher", kind: SPAN_KIND.client, name: "POST" });
  });

  it("posted only OTLP JSON to /v1/traces", () => {
    expect(otlp.refused).toEqual([]);
  });
});
