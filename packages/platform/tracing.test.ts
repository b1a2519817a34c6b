import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { startSpan, startTracing, TRACING_STOP_TIMEOUT_MS, tracesUrl, tracingState } from "./tracing.js";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const silent = pino({ level: "silent", base: { service: "unit" } });

describe("tracesUrl", () => {
  it("is off without an endpoint, and when the SDK is disabled", () => {
    expect(tracesUrl({})).toBeUndefined();
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBeUndefined();
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_TRACES_EXPORTER: "none" })).toBeUndefined();
  });

  it("appends /v1/traces to the base endpoint; the traces endpoint is taken as it is", () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe("http://collector:4318/v1/traces");
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/otlp/" })).toBe("http://collector:4318/otlp/v1/traces");
    expect(
      tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example.com/api/v1/traces" }),
    ).toBe("https://traces.example.com/api/v1/traces");
  });
});

describe("tracing", () => {
  it("off: loads nothing and makes no span", async () => {
    const handle = await startTracing("unit", {}, silent);
    expect(handle.enabled).toBe(false);
    expect(startSpan(silent, "x", "server", undefined)).toBeUndefined();
    expect(tracingState()).toEqual({ sdkLoaded: false, services: [] });
    await handle.stop();
  });

  it("on: a span continues its parent's trace, its traceparent is its own context, and it stops with its last user", async () => {
    // Nothing listens there; no span below ends, so nothing is ever sent.
    const config = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };
    const first = await startTracing("unit", config, silent);
    const second = await startTracing("unit", config, silent);
    expect(tracingState()).toEqual({ sdkLoaded: true, services: ["unit"] });

    const child = startSpan(silent, "child", "server", `00-${TRACE}-${PARENT}-01`)!;
    expect(child.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(child.traceparent).not.toContain(PARENT);
    const grandchild = child.startChild("grandchild", "client");
    expect(grandchild.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(grandchild.traceparent).not.toBe(child.traceparent);

    // The default sampler follows the parent: a parent not sampled gives a span not recorded,
    // still of the same trace.
    expect(startSpan(silent, "unsampled", "server", `00-${TRACE}-${PARENT}-00`)!.traceparent).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
    // None or a malformed one: a new sampled trace.
    for (const parent of [undefined, "00-nope-01", `00-${"0".repeat(32)}-${PARENT}-01`]) {
      const root = startSpan(silent, "root", "server", parent)!;
      expect(root.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(root.traceparent).not.toContain(TRACE);
    }
    // Another service of the process that does not trace gets no span.
    expect(startSpan("other", "x", "server", undefined)).toBeUndefined();

    await first.stop();
    expect(tracingState().services).toEqual(["unit"]);
    await second.stop();
    expect(tracingState().services).toEqual([]);
  });

  it("on: a stop waits for a collector that does not answer no longer than TRACING_STOP_TIMEOUT_MS", async () => {
    const sockets = new Set<Socket>();
    const silentCollector = http.createServer(() => {}); // takes the request, never answers
    silentCollector.on("connection", (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silentCollector.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silentCollector.address() as AddressInfo).port}`;
    try {
      const handle = await startTracing("unit", { OTEL_EXPORTER_OTLP_ENDPOINT: url }, silent);
      startSpan(silent, "ended", "server", undefined)!.end();
      const started = Date.now();
      await handle.stop();
      expect(Date.now() - started).toBeGreaterThanOrEqual(TRACING_STOP_TIMEOUT_MS - 50);
      expect(Date.now() - started).toBeLessThan(TRACING_STOP_TIMEOUT_MS + 1_000);
      expect(tracingState().services).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
      silentCollector.close();
    }
  });
});
