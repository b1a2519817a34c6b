// Starts Waybill for a benchmark the way it is deployed: each service in its own process
// (BENCH_TOPOLOGY=split, the default), or all in one process as `npm start` does (=single).
import { freePorts } from "../services/launcher/ports.js";
import { runJs, runTs, type Child } from "../test/support/processes.js";

export interface RunningSystem {
  baseUrl: string;
  /** The MQTT gateway's device port. */
  mqttUrl: string;
  /** Process id of each service's process (one "launcher" in the single topology), for CPU accounting. */
  pids: Record<string, number>;
  /** Each service's ops port (metrics), in the split topology. */
  opsPorts: Record<string, number>;
  stop(): Promise<void>;
}

export async function startSystem(env: Record<string, string>, topology = process.env.BENCH_TOPOLOGY ?? "split"): Promise<RunningSystem> {
  const common = { ...env, LOG_LEVEL: "warn", BIND_HOST: "127.0.0.1" };
  if (topology === "single") {
    const launcher = runTs("services/launcher/main.ts", { ...common, HTTP_PORT: "0", MQTT_PORT: "0" });
    const baseUrl = (await launcher.waitForOutput(/HTTP API: +(http:\/\/\S+)\/v1/, 60_000))[1];
    const mqttUrl = (await launcher.waitForOutput(/MQTT: +(mqtt:\/\/\S+)/, 60_000))[1];
    return { baseUrl, mqttUrl, pids: { launcher: launcher.process.pid! }, opsPorts: {}, stop: () => stopAll([launcher], "SIGINT") };
  }
  // A port free when chosen can be taken before the service binds it (by any process on the
  // machine); then the whole system starts again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSplit(common);
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

const START_ATTEMPTS = 3;
const SERVICES_WITH_OPS_PORT = ["identity", "inventory", "orders", "dispatcher", "mqtt-gateway"];

async function startSplit(common: Record<string, string>): Promise<RunningSystem> {
  // Every port at once, so all are distinct: asked for one by one, or while services start, the
  // OS can hand out the same port twice (seen: EADDRINUSE on the gateway's gRPC port).
  const allocated = await freePorts(8 + SERVICES_WITH_OPS_PORT.length);
  const [identity, orders, inventory, dispatcher, devices, mqtt, http] = allocated;
  const ports = { identity, orders, inventory, dispatcher, devices, mqtt, http };
  const opsPorts = new Map(SERVICES_WITH_OPS_PORT.map((service, i) => [service, allocated[7 + i]]));
  const edgeOpsPort = allocated[7 + SERVICES_WITH_OPS_PORT.length];
  const urls = {
    IDENTITY_GRPC_URL: `127.0.0.1:${ports.identity}`,
    ORDERS_GRPC_URL: `127.0.0.1:${ports.orders}`,
    INVENTORY_GRPC_URL: `127.0.0.1:${ports.inventory}`,
    DISPATCHER_GRPC_URL: `127.0.0.1:${ports.dispatcher}`,
    MQTT_GATEWAY_GRPC_URL: `127.0.0.1:${ports.devices}`,
  };
  const children: Child[] = [];
  const pids: Record<string, number> = {};
  const start = async (service: string, extra: Record<string, string>) => {
    const opsPort = opsPorts.get(service);
    const env = { ...common, ...urls, ...(opsPort ? { OPS_PORT: String(opsPort) } : {}), ...extra };
    // BENCH_COMPILED=1: the services as the image runs them, from `npm run build`'s dist/ (its
    // profiles also name every function by its line, which tsx's one-line output does not).
    const child = process.env.BENCH_COMPILED === "1" ? runJs(`services/${service}/dist/main.js`, env) : runTs(`services/${service}/main.ts`, env);
    children.push(child);
    pids[service] = child.process.pid!;
    const port = extra.HTTP_PORT ?? String(opsPort); // the edge serves /readyz on its HTTP port
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || child.process.exitCode !== null) throw new Error(`${service} did not become ready:\n${child.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  try {
    // Identity first: it bootstraps the tenant and token; the others migrate their own schemas.
    await start("identity", { GRPC_PORT: String(ports.identity) });
    await Promise.all([
      start("inventory", { GRPC_PORT: String(ports.inventory) }),
      start("orders", { GRPC_PORT: String(ports.orders) }),
      start("dispatcher", { GRPC_PORT: String(ports.dispatcher) }),
      start("mqtt-gateway", { GRPC_PORT: String(ports.devices), MQTT_PORT: String(ports.mqtt) }),
    ]);
    await start("edge", { HTTP_PORT: String(ports.http), OPS_PORT: String(edgeOpsPort) });
  } catch (error) {
    await stopAll(children, "SIGTERM");
    throw error;
  }
  return {
    baseUrl: `http://127.0.0.1:${ports.http}`,
    mqttUrl: `mqtt://127.0.0.1:${ports.mqtt}`,
    pids,
    opsPorts: { ...Object.fromEntries(opsPorts), edge: edgeOpsPort },
    stop: () => stopAll(children, "SIGTERM"),
  };
}

async function stopAll(children: Child[], signal: NodeJS.Signals): Promise<void> {
  for (const child of children.reverse()) {
    child.process.kill(signal);
    await child.exited(30_000).catch(() => child.process.kill("SIGKILL"));
  }
}
