// The split topology the chaos suite breaks: a nats-server and a PostgreSQL of its own (so they
// can be restarted), and each service as its own process on fixed ports (so a restarted one is
// found where it was). Services are killed with SIGKILL and started again as an orchestrator
// would; "ready" is their /readyz answering 200.
import { randomBytes } from "node:crypto";
import { freePorts } from "../../services/launcher/ports.js";
import { createTestEnvironment, type TestEnvironment } from "../support/environment.js";
import { startTestNats, startTestPostgres, type RestartableServer } from "../support/private-servers.js";
import { runTs, type Child } from "../support/processes.js";

export const SERVICES = ["identity", "inventory", "orders", "dispatcher", "mqtt-gateway", "edge"] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface Topology {
  nats: RestartableServer;
  postgres: RestartableServer;
  env: TestEnvironment;
  token: string;
  baseUrl: string;
  mqttPort: number;
  /** SIGKILLs the service and starts it again at once; resolves with the ms until it is ready. */
  kill9(service: ServiceName): Promise<number>;
  /** Resolves with the ms until every service answers /readyz 200 (throws after `timeoutMs`). */
  allReady(timeoutMs?: number): Promise<number>;
  /** Output of a service's current and earlier processes. */
  output(service: ServiceName): string;
  stop(): Promise<void>;
}

export interface TopologyOptions {
  /** Extra environment for every service. */
  env?: Record<string, string>;
  /** Servers started by the caller (e.g. behind a faulty link), stopped with the topology; private ones otherwise. */
  servers?: { nats: RestartableServer; postgres: RestartableServer };
}

const isReady = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
    (r) => r.ok,
    () => false,
  );

export async function startTopology(options: TopologyOptions = {}): Promise<Topology> {
  const nats = options.servers?.nats ?? (await startTestNats());
  const postgres = options.servers?.postgres ?? (await startTestPostgres());
  const env = await createTestEnvironment({ databaseUrl: postgres.url, natsUrl: nats.url });
  const token = `api-${randomBytes(32).toString("base64url")}`;
  const [httpPort, mqttPort, ...ports] = await freePorts(2 + SERVICES.length * 2);
  const grpc = Object.fromEntries(SERVICES.map((s, i) => [s, ports[i]])) as Record<ServiceName, number>;
  const ops = Object.fromEntries(SERVICES.map((s, i) => [s, ports[SERVICES.length + i]])) as Record<ServiceName, number>;
  const common = {
    ...env.env,
    LOG_LEVEL: "warn",
    BOOTSTRAP_API_TOKEN: token,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64"),
    IDENTITY_SECRET_KEY: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    IDENTITY_GRPC_URL: `127.0.0.1:${grpc.identity}`,
    ORDERS_GRPC_URL: `127.0.0.1:${grpc.orders}`,
    INVENTORY_GRPC_URL: `127.0.0.1:${grpc.inventory}`,
    DISPATCHER_GRPC_URL: `127.0.0.1:${grpc.dispatcher}`,
    MQTT_GATEWAY_GRPC_URL: `127.0.0.1:${grpc["mqtt-gateway"]}`,
    ...options.env,
  };
  const running = new Map<ServiceName, Child>();
  const outputs = new Map<ServiceName, string[]>();

  const launch = (service: ServiceName) => {
    const child = runTs(`services/${service}/main.ts`, {
      ...common,
      GRPC_PORT: String(grpc[service]),
      OPS_PORT: String(ops[service]),
      ...(service === "edge" ? { HTTP_PORT: String(httpPort) } : {}),
      ...(service === "mqtt-gateway" ? { MQTT_PORT: String(mqttPort) } : {}),
    });
    running.set(service, child);
  };
  const waitReady = async (services: readonly ServiceName[], timeoutMs: number): Promise<number> => {
    const started = Date.now();
    for (;;) {
      const ready = await Promise.all(services.map((s) => isReady(ops[s])));
      if (ready.every(Boolean)) return Date.now() - started;
      for (const s of services) {
        const child = running.get(s)!;
        if (child.process.exitCode !== null) throw new Error(`${s} exited (${child.process.exitCode}):\n${child.output().slice(-3_000)}`);
      }
      if (Date.now() - started > timeoutMs) {
        const waiting = services.filter((_, i) => !ready[i]);
        throw new Error(`not ready after ${timeoutMs} ms: ${waiting.join(", ")}\n${waiting.map((s) => running.get(s)!.output().slice(-2_000)).join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async (service: ServiceName, signal: NodeJS.Signals) => {
    const child = running.get(service);
    if (!child || child.process.exitCode !== null || child.process.signalCode !== null) return;
    outputs.set(service, [...(outputs.get(service) ?? []), child.output()]);
    child.process.kill(signal);
    await child.exited(30_000).catch(() => child.process.kill("SIGKILL"));
  };

  launch("identity");
  await waitReady(["identity"], 120_000);
  for (const s of ["inventory", "orders", "dispatcher", "mqtt-gateway"] as const) launch(s);
  await waitReady(["inventory", "orders", "dispatcher", "mqtt-gateway"], 120_000);
  launch("edge");
  await waitReady(["edge"], 120_000);

  return {
    nats,
    postgres,
    env,
    token,
    baseUrl: `http://127.0.0.1:${httpPort}/v1`,
    mqttPort,
    async kill9(service) {
      await kill(service, "SIGKILL");
      const from = Date.now();
      launch(service);
      await waitReady([service], 120_000);
      return Date.now() - from;
    },
    allReady: (timeoutMs = 120_000) => waitReady(SERVICES, timeoutMs),
    output: (service) => [...(outputs.get(service) ?? []), running.get(service)?.output() ?? ""].join("\n--- restarted ---\n"),
    async stop() {
      for (const service of [...SERVICES].reverse()) await kill(service, "SIGTERM");
      await env.cleanup().catch(() => {});
      await nats.stop();
      await postgres.stop();
    },
  };
}
