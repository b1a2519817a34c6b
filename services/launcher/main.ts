// `npm start`: every service in one process, wired together on loopback. Uses PostgreSQL and
// NATS at DATABASE_URL / NATS_URL, or starts private ones when nothing answers there.
import path from "node:path";
import { z } from "zod";
import { DELIVERIES_STREAM, loadDispatcherConfig, startDispatcher, WEBHOOK_SECRET_KEY_FILE } from "@waybill/dispatcher";
import { DEFAULT_HTTP_PORT, loadEdgeConfig, startEdge } from "@waybill/edge";
import {
  loadIdentityConfig,
  startIdentity,
  bootstrapCredentialsText,
  hasGeneratedSecrets,
  writeCredentialsFile,
  IDENTITY_SECRET_KEY_FILE,
  REVOCATIONS_STREAM,
} from "@waybill/identity";
import { loadInventoryConfig, startInventory } from "@waybill/inventory";
import { DEFAULT_MQTT_PORT, loadMqttGatewayConfig, startMqttGateway } from "@waybill/mqtt-gateway";
import { loadOrdersConfig, startOrders } from "@waybill/orders";
import { ConfigError, DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, loadConfig } from "@waybill/platform/config.js";
import { DEFAULT_DATA_DIR, readLocalState, updateLocalState } from "@waybill/platform/local-state.js";
import { createLogger } from "@waybill/platform/logger.js";
import { ensureSealingKeyFile } from "@waybill/platform/sealing-key-file.js";
import { installRuntimeFixes } from "@waybill/platform/runtime-fixes.js";
import { createPool } from "@waybill/platform/db.js";
import { readInstallationId } from "@waybill/platform/installation.js";
import { createTopology, streamConfigs } from "@waybill/platform/nats.js";
import { answers, isPortFree, startOnPort } from "./ports.js";
import { MissingBinaryError, startPrivateNats, startPrivatePostgres, type PrivateServer } from "./private-servers.js";
import { runningSummaryLines } from "./summary.js";

export { DEFAULT_DATA_DIR };
/** The console stays readable: warnings and errors only, unless LOG_LEVEL says otherwise. */
export const LAUNCHER_LOG_LEVEL = "warn";

const launcherConfigSchema = z.object({
  DATABASE_URL: z.string().url().default(DEFAULT_DATABASE_URL),
  NATS_URL: z.string().default(DEFAULT_NATS_URL),
  WAYBILL_DATA_DIR: z.string().default(DEFAULT_DATA_DIR),
  HTTP_PORT: z.string().optional(),
  MQTT_PORT: z.string().optional(),
  LOG_LEVEL: z.string().default(LAUNCHER_LOG_LEVEL),
});

interface Stoppable {
  stop(): Promise<void>;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const launcher = loadConfig(launcherConfigSchema, process.env);
  installRuntimeFixes({ logger: createLogger("launcher", launcher.LOG_LEVEL) }); // before the first gRPC channel or call
  const dataDir = path.resolve(launcher.WAYBILL_DATA_DIR);
  const running: Stoppable[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("Waybill: stopping…");
    for (const part of running.reverse()) await part.stop().catch((error) => say(`  while stopping: ${String(error)}`));
    say("Waybill: stopped.");
    process.exit(code);
  };
  // Ctrl-C reaches the whole foreground process group, but not the private servers (a group of
  // their own): they are stopped here, last, after the services have drained.
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  // The terminal closed: writing to it now fails (EIO), which must not end the drain.
  process.on("SIGHUP", () => {
    process.stdout.on("error", () => {});
    process.stderr.on("error", () => {});
    void stopAll(0);
  });

  try {
    const databaseUrl = await ensureServer("PostgreSQL", launcher.DATABASE_URL, 5432, () => startPrivatePostgres(dataDir), running);
    const natsUrl = await ensureServer("NATS", launcher.NATS_URL, 4222, () => startPrivateNats(dataDir), running);

    // In one process the services talk over loopback on ports the OS picks.
    // Hook secrets and session signing keys stay readable across restarts: without
    // WEBHOOK_SECRET_KEY / IDENTITY_SECRET_KEY, keys kept in the data folder.
    const webhookSecretKey = process.env.WEBHOOK_SECRET_KEY || (await ensureSealingKeyFile(dataDir, WEBHOOK_SECRET_KEY_FILE));
    const identitySecretKey = process.env.IDENTITY_SECRET_KEY || (await ensureSealingKeyFile(dataDir, IDENTITY_SECRET_KEY_FILE));
    // Ports chosen on an earlier start (when 8080 / 1883 were taken) are tried first, so devices
    // and scripts configured then keep working; `npm run admin` reads the database URL.
    const remembered = await readLocalState(dataDir);
    await updateLocalState(dataDir, { databaseUrl });
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      LOG_LEVEL: launcher.LOG_LEVEL,
      BIND_HOST: "127.0.0.1",
      GRPC_PORT: "0",
      OPS_PORT: "0",
      WEBHOOK_SECRET_KEY: webhookSecretKey,
      IDENTITY_SECRET_KEY: identitySecretKey,
    };
    // Generated first-start credentials: on the terminal the launcher runs in, or (no terminal:
    // a service manager, CI, a pipe into a log) in a file of the data folder only this user reads.
    const identity = await startIdentity(loadIdentityConfig(env), {
      announce: async (result) => {
        if (process.stdout.isTTY || !hasGeneratedSecrets(result)) {
          process.stdout.write(
            hasGeneratedSecrets(result)
              ? bootstrapCredentialsText(result)
              : `Waybill first start: created tenant "default" (${result.tenantId}) and admin ${result.adminEmail}.\n`,
          );
          return;
        }
        const file = path.join(dataDir, BOOTSTRAP_CREDENTIALS_FILE_NAME);
        await writeCredentialsFile(file, result);
        say(`Waybill first start: created tenant "default" (${result.tenantId}) and admin ${result.adminEmail}.`);
        say(`  The generated admin password and API token are in ${file} (readable only by you); read them once, then delete it.`);
      },
    });
    running.push(identity);
    const inventory = await startInventory(loadInventoryConfig(env));
    running.push(inventory);
    const orders = await startOrders(loadOrdersConfig({ ...env, INVENTORY_GRPC_URL: `127.0.0.1:${inventory.grpcPort}` }));
    running.push(orders);
    const dispatcher = await startDispatcher(loadDispatcherConfig(env));
    running.push(dispatcher);
    const backends = {
      IDENTITY_GRPC_URL: `127.0.0.1:${identity.grpcPort}`,
      ORDERS_GRPC_URL: `127.0.0.1:${orders.grpcPort}`,
      INVENTORY_GRPC_URL: `127.0.0.1:${inventory.grpcPort}`,
      DISPATCHER_GRPC_URL: `127.0.0.1:${dispatcher.grpcPort}`,
    };
    // Before the edge: the edge's /v1/devices calls the gateway's MqttGatewayService.
    const gateway = await onChosenPort("MQTT", launcher.MQTT_PORT, DEFAULT_MQTT_PORT, remembered.mqttPort, (mqttPort) =>
      startMqttGateway(loadMqttGatewayConfig({ ...env, ...backends, MQTT_PORT: String(mqttPort), BIND_HOST: process.env.BIND_HOST ?? "0.0.0.0" })),
    );
    running.push(gateway);
    const devices = { MQTT_GATEWAY_GRPC_URL: `127.0.0.1:${gateway.grpcPort}` };
    const edge = await onChosenPort("HTTP", launcher.HTTP_PORT, DEFAULT_HTTP_PORT, remembered.httpPort, (httpPort) =>
      startEdge(loadEdgeConfig({ ...env, ...backends, ...devices, HTTP_PORT: String(httpPort), BIND_HOST: process.env.BIND_HOST ?? "0.0.0.0" })),
    );
    running.push(edge);
    // Only ports the launcher chose are remembered; a configured one is the operator's to repeat.
    await updateLocalState(dataDir, {
      ...(launcher.MQTT_PORT === undefined ? { mqttPort: gateway.port } : {}),
      ...(launcher.HTTP_PORT === undefined ? { httpPort: Number(new URL(edge.url).port) } : {}),
    });

    const settings = loadDispatcherConfig(env);
    say("");
    say("Waybill is running.");
    for (const line of runningSummaryLines({
      httpUrl: edge.url,
      httpBindHost: process.env.BIND_HOST ?? "0.0.0.0",
      mqttUrl: `${gateway.tls ? "mqtts" : "mqtt"}://127.0.0.1:${gateway.port}`,
      mqttBindHost: process.env.BIND_HOST ?? "0.0.0.0",
      databaseUrl,
      natsUrl,
      natsUser: settings.NATS_USER,
      streamPrefix: settings.STREAM_PREFIX,
      streams: streamConfigs(createTopology(settings.STREAM_PREFIX), 1, [DELIVERIES_STREAM, REVOCATIONS_STREAM]).map((stream) => stream.name),
      allowPrivateNetworks: settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      installationId: await installationOf(databaseUrl),
      opsPorts: {
        identity: identity.opsPort,
        inventory: inventory.opsPort,
        orders: orders.opsPort,
        dispatcher: dispatcher.opsPort,
        "mqtt-gateway": gateway.opsPort,
      },
    }))
      say(line);
    if (!identity.bootstrap) for (const line of bootstrapSkipped(launcher.WAYBILL_DATA_DIR, dataDir)) say(line);
    say("Press Ctrl-C to stop.");
  } catch (error) {
    if (error instanceof MissingBinaryError || error instanceof ConfigError) say(`Waybill: ${error.message}`);
    else say(`Waybill: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await stopAll(1);
  }
}

const BOOTSTRAP_VARIABLES = ["BOOTSTRAP_API_TOKEN", "BOOTSTRAP_ADMIN_EMAIL", "BOOTSTRAP_ADMIN_PASSWORD"] as const;
/** In the data folder: the first start's generated credentials when there is no terminal to show them on. */
export const BOOTSTRAP_CREDENTIALS_FILE_NAME = "bootstrap-credentials";

/**
 * What a later start says instead of printing credentials: the bootstrap runs once, on an empty
 * store, so BOOTSTRAP_* set now create nothing; and how to get a token anyway.
 */
function bootstrapSkipped(dataDirSetting: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const set = BOOTSTRAP_VARIABLES.filter((name) => env[name]);
  // `npm run admin` finds the database as the launcher did: DATABASE_URL, else what the data folder records.
  const prefix = env.DATABASE_URL || dataDir === path.resolve(DEFAULT_DATA_DIR) ? "" : `WAYBILL_DATA_DIR=${dataDirSetting} `;
  const lines = [""];
  if (set.length > 0) {
    lines.push(`Waybill: ${set.join(", ")} ${set.length === 1 ? "is" : "are"} set but IGNORED: the identity store is not empty (bootstrapped on an`);
    lines.push("  earlier start, or tenants made with npm run admin); the bootstrap runs only once, on an empty store, so nothing was created from them.");
  } else {
    lines.push("Waybill: the identity store was set up earlier (first-start credentials are printed only once).");
  }
  lines.push("  To get a working API token now (printed once):");
  lines.push(`    ${prefix}npm run -s admin -- tokens create --tenant default --name my-token --type api`);
  lines.push(`  To set a new password for the admin:  ${prefix}npm run admin -- reset-password --email <email>`);
  return lines;
}

/** The installation id the services keep in the database (installation.ts). */
async function installationOf(databaseUrl: string): Promise<string | undefined> {
  const pool = createPool({ databaseUrl, schema: "public", max: 1, applicationName: "waybill-launcher" });
  try {
    return await readInstallationId(pool);
  } finally {
    await pool.end();
  }
}

/** Uses the server at `url` when it answers, else starts a private one. */
async function ensureServer(name: string, url: string, defaultPort: number, startPrivate: () => Promise<PrivateServer>, running: Stoppable[]): Promise<string> {
  const first = new URL(url.split(",")[0]);
  if (await answers(first.hostname, Number(first.port || defaultPort))) return url;
  say(`Waybill: no ${name} answers at ${first.host}; starting a private one…`);
  const server = await startPrivate();
  running.push(server);
  say(`Waybill: private ${name} at ${server.url}`);
  return server.url;
}

/**
 * Starts a service on its configured port; else on the port remembered from the last start; else
 * on the default or, when that is taken, a free one.
 */
async function onChosenPort<T>(
  name: string,
  configured: string | undefined,
  fallback: number,
  remembered: number | undefined,
  start: (port: number) => Promise<T>,
): Promise<T> {
  const configuredPort = configured === undefined ? undefined : Number(configured);
  if (configuredPort === undefined && remembered !== undefined && remembered !== fallback) {
    if (await isPortFree(remembered, "0.0.0.0")) {
      try {
        return await start(remembered);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
      }
    }
    say(`Waybill: ${name} port ${remembered} (used on the last start) is taken now; clients configured for it must change.`);
  }
  return startOnPort(configuredPort, fallback, start, () =>
    say(`Waybill: port ${fallback} is taken; ${name} uses a free port instead (set ${name}_PORT to choose; this one is remembered for the next start).`),
  );
}

void main();
