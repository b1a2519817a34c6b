// The edge as Kubernetes starts it: the variables the production overlay gives its container
// (names and values, with the cluster's Service names resolved to this test's processes) serve
// GET /v1/devices. And without the gateway the edge stays ready, says so in /readyz and in a
// metric, and answers 503 on the device routes only.
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { containerEnvironments } from "../scripts/deploy-env.js";
import { render } from "../scripts/validate-deploy.js";
import { loadEdgeConfig } from "../services/edge/config.js";
import { type EdgeHandle, startEdge } from "../services/edge/service.js";
import { eventually, expectProblem, request } from "./support/http.js";
import { metric } from "./support/metrics.js";
import { type Stack, startStack } from "./support/stack.js";

const repo = path.resolve(import.meta.dirname, "..");
let stack: Stack;
const edges: EdgeHandle[] = [];

beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => {
  for (const edge of edges) await edge.stop();
  await stack?.stop();
});

/** The edge container's literal variables in the production overlay. */
function manifestEdgeEnvironment(): Map<string, string> {
  const objects = render("kubectl", path.join(repo, "deploy/overlays/production"));
  const edge = containerEnvironments(objects).find((c) => c.service === "edge");
  if (!edge) throw new Error("no edge container in the production overlay");
  return new Map([...edge.values].filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** What cluster DNS would do: each `<service>-grpc` Service name becomes that process's address here. */
function resolveServiceNames(value: string): string {
  const ports: Record<string, number> = {
    "identity-grpc": stack.identity.grpcPort,
    "orders-grpc": stack.orders.grpcPort,
    "inventory-grpc": stack.inventory.grpcPort,
    "dispatcher-grpc": stack.dispatcher.grpcPort,
    "mqtt-gateway-grpc": stack.gateway.grpcPort,
  };
  return value.replace(/^dns:\/\/\/([\w-]+):\d+$/, (whole, host: string) => (ports[host] ? `dns:///127.0.0.1:${ports[host]}` : whole));
}

async function startEdgeWith(env: Record<string, string>): Promise<EdgeHandle> {
  const edge = await startEdge(
    loadEdgeConfig({
      ...env,
      // This machine's servers instead of the cluster's (TLS NATS with a password, three replicas).
      DATABASE_URL: stack.env.env.DATABASE_URL,
      NATS_URL: stack.env.env.NATS_URL,
      NATS_USER: "",
      NATS_STREAM_REPLICAS: "1",
      STREAM_PREFIX: stack.env.env.STREAM_PREFIX,
      HTTP_PORT: "0",
      OPS_PORT: "0",
      BIND_HOST: "127.0.0.1",
      READINESS_CHECK_INTERVAL_MS: "200",
    }),
  );
  edges.push(edge);
  return edge;
}

async function settledReadiness(edge: EdgeHandle) {
  return eventually(async () => {
    const answer = await request(`http://127.0.0.1:${edge.opsPort}/readyz`);
    return answer.body.checks?.devices !== "pending" ? answer : undefined;
  });
}

describe("the edge with the production overlay's environment", () => {
  it("reaches the MQTT gateway: GET /v1/devices answers 200 and /readyz reports devices ok", async () => {
    const manifest = manifestEdgeEnvironment();
    const env = Object.fromEntries([...manifest].map(([name, value]) => [name, resolveServiceNames(value)]));
    const edge = await startEdgeWith(env);

    const devices = await request(`${edge.url}/v1/devices`, { token: stack.token });
    expect(devices.status).toBe(200);
    const grpcNames = [...manifest.keys()].filter((name) => name.endsWith("_GRPC_URL")).sort();
    expect(grpcNames).toEqual(["DISPATCHER_GRPC_URL", "IDENTITY_GRPC_URL", "INVENTORY_GRPC_URL", "MQTT_GATEWAY_GRPC_URL", "ORDERS_GRPC_URL"]);
    const ready = await settledReadiness(edge);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ devices: "ok", identity: "ok", orders: "ok", inventory: "ok", dispatcher: "ok", nats: "ok" });
    expect(await metric(edge.opsPort, /^waybill_dependency_up\{.*dependency="devices"/)).toBe(1);
  }, 60_000);

  it("without the gateway: stays ready, reports devices down, 503 on /v1/devices only", async () => {
    const closedPort = await unusedPort();
    const env = Object.fromEntries([...manifestEdgeEnvironment()].map(([name, value]) => [name, resolveServiceNames(value)]));
    const edge = await startEdgeWith({ ...env, MQTT_GATEWAY_GRPC_URL: `127.0.0.1:${closedPort}` });

    const ready = await settledReadiness(edge);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe("ready");
    expect(ready.body.checks.devices).not.toBe("ok");
    expect(ready.body.checks.orders).toBe("ok");
    expect(await metric(edge.opsPort, /^waybill_dependency_up\{.*dependency="devices"/)).toBe(0);
    expect(await metric(edge.opsPort, /^waybill_dependency_up\{.*dependency="orders"/)).toBe(1);

    expectProblem(await request(`${edge.url}/v1/devices`, { token: stack.token }), 503, "upstream_unavailable");
    expect((await request(`${edge.url}/v1/orders`, { token: stack.token })).status).toBe(200);
  }, 60_000);
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
