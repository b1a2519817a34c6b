// Production runs the compiled JavaScript with plain node (no tsx): `npm run build`, then every
// service started from dist/ must come up against the real PostgreSQL and NATS and answer
// /healthz and /readyz, and the edge must serve the API. As in Kubernetes, the compiled migrate
// command migrates first and the services start with MIGRATE_AT_START=false.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../services/launcher/ports.js";
import { buildOnce } from "./support/build.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { ROOT, runJs, type Child } from "./support/processes.js";

const run = promisify(execFile);
const SERVICES = ["identity", "inventory", "orders", "dispatcher", "mqtt-gateway", "edge"] as const;

describe("compiled services (npm run build, node dist/…)", () => {
  let env: TestEnvironment;
  const children: Child[] = [];
  const opsPorts = new Map<string, number>();
  let httpPort = 0;

  beforeAll(async () => {
    await buildOnce();
    env = await createTestEnvironment();
    const migrated = await run(process.execPath, ["services/launcher/dist/migrate.js"], { cwd: ROOT, env: { ...process.env, ...env.env } });
    expect(migrated.stdout).toMatch(/orders \(schema orders\): applied/);
    const [identity, orders, inventory, dispatcher, devices, mqtt, http, ...ops] = await freePorts(7 + SERVICES.length);
    httpPort = http;
    for (const [i, service] of SERVICES.entries()) opsPorts.set(service, ops[i]);
    const common = {
      ...env.env,
      NODE_ENV: "production",
      MIGRATE_AT_START: "false",
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"),
      IDENTITY_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
      IDENTITY_GRPC_URL: `127.0.0.1:${identity}`,
      ORDERS_GRPC_URL: `127.0.0.1:${orders}`,
      INVENTORY_GRPC_URL: `127.0.0.1:${inventory}`,
      DISPATCHER_GRPC_URL: `127.0.0.1:${dispatcher}`,
      MQTT_GATEWAY_GRPC_URL: `127.0.0.1:${devices}`,
    };
    const grpcPort = { identity, orders, inventory, dispatcher, "mqtt-gateway": devices, edge: 0 };
    const start = async (service: (typeof SERVICES)[number]) => {
      const child = runJs(`services/${service}/dist/main.js`, {
        ...common,
        GRPC_PORT: String(grpcPort[service]),
        OPS_PORT: String(opsPorts.get(service)),
        ...(service === "edge" ? { HTTP_PORT: String(httpPort) } : {}),
        ...(service === "mqtt-gateway" ? { MQTT_PORT: String(mqtt) } : {}),
      });
      children.push(child);
      const deadline = Date.now() + 60_000;
      while (
        !(await fetch(`http://127.0.0.1:${opsPorts.get(service)}/readyz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (Date.now() > deadline || child.process.exitCode !== null) throw new Error(`${service} did not become ready:\n${child.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await start("identity");
    await Promise.all((["inventory", "orders", "dispatcher", "mqtt-gateway"] as const).map(start));
    await start("edge");
  }, 180_000);

  afterAll(async () => {
    for (const child of children.reverse()) child.process.kill("SIGTERM");
    await Promise.allSettled(children.map((c) => c.exited(15_000)));
    await env?.cleanup();
  });

  it("every service answers /healthz from its compiled code", async () => {
    for (const service of SERVICES) {
      const answer = await fetch(`http://127.0.0.1:${opsPorts.get(service)}/healthz`);
      expect(answer.status, service).toBe(200);
      expect(await answer.json()).toMatchObject({ status: "ok", service });
    }
  });

  it("the compiled edge serves the API through the compiled backends", async () => {
    const open = await fetch(`http://127.0.0.1:${httpPort}/v1/openapi.json`);
    expect(open.status).toBe(200);
    const refused = await fetch(`http://127.0.0.1:${httpPort}/v1/orders`);
    expect(refused.status).toBe(401);
    const login = await fetch(`http://127.0.0.1:${httpPort}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong-password" }),
    });
    expect(login.status).toBe(401); // identity answered over gRPC: the compiled services talk to each other
  });
});
