// The MQTT gateway: an aedes broker for devices, the device registry (schema "mqtt_gateway") and the
// MqttGatewayService over gRPC. Devices authenticate with sensor tokens; a QoS 1 publish is
// acknowledged only after JetStream has stored it (INGRESS, or EVENTS for telemetry); revoked or expired tokens lose their
// sessions.
import net from "node:net";
import path from "node:path";
import tls from "node:tls";
import { fileURLToPath } from "node:url";
import { credentials } from "@grpc/grpc-js";
import { MqttGatewayServiceService } from "@waybill/contracts/gen/waybill/mqtt_gateway/v1/mqtt_gateway.js";
import { IdentityServiceClient } from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import { watchRevocations } from "@waybill/contracts/identity-client/revocation-watch.js";
import { createTokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { GRPC_CHANNEL_OPTIONS, startGrpcServer } from "@waybill/platform/grpc.js";
import { grpcClientTracing } from "@waybill/platform/grpc-tracing.js";
import type { Logger } from "@waybill/platform/logger.js";
import { createOutboxRelay } from "@waybill/platform/outbox.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { type ServiceSchema, startRuntime } from "@waybill/platform/runtime.js";
import { createDeviceBroker } from "./broker.js";
import type { MqttGatewayConfig } from "./config.js";
import { createMqttGatewayHandlers } from "./grpc-handlers.js";
import { createLastSeenWriter } from "./last-seen.js";
import { startPresence } from "./presence.js";
import { startReadingsConsumer } from "./readings-consumer.js";
import { readTlsFiles, reloadCertificateOnChange } from "./tls-reload.js";

export const MQTT_GATEWAY_SCHEMA = "mqtt_gateway";
/** The schema's name before the gateway had one name everywhere; renamed at start. */
const FORMER_SCHEMA_NAMES = ["devices"];
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** The schema and migrations of the gateway, for startRuntime and the migrate command. */
export const MQTT_GATEWAY_SERVICE_SCHEMA: ServiceSchema = {
  service: "mqtt-gateway",
  schema: MQTT_GATEWAY_SCHEMA,
  formerSchemaNames: FORMER_SCHEMA_NAMES,
  migrationsDir: MIGRATIONS_DIR,
};

export interface MqttGatewayHandle extends ServiceHandle {
  port: number;
  opsPort: number;
  grpcPort: number;
  /** Whether the broker speaks MQTT over TLS (mqtts://). */
  tls: boolean;
  /** Publishes a command to one tenant's device (devices/<deviceId>/commands/<levels…>). */
  sendCommand(tenantId: string, deviceId: string, levels: string[], payload: string | Buffer): Promise<void>;
  /** What a revocation gap triggers: forget cached tokens, re-validate every live session. Resolves to the sessions closed. */
  revalidateSessions(): Promise<number>;
}

export async function startMqttGateway(config: MqttGatewayConfig, deps: { logger?: Logger } = {}): Promise<MqttGatewayHandle> {
  const runtime = await startRuntime({
    ...MQTT_GATEWAY_SERVICE_SCHEMA,
    config,
    opsPort: config.OPS_PORT,
    logger: deps.logger,
  });
  try {
    const { pool, bus, logger, ops } = runtime;
    const relay = createOutboxRelay({ pool, bus, schema: MQTT_GATEWAY_SCHEMA, logger });
    await relay.start();
    runtime.defer(relay.stop);
    const identity = new IdentityServiceClient(config.IDENTITY_GRPC_URL, credentials.createInsecure(), {
      ...GRPC_CHANNEL_OPTIONS,
      ...grpcClientTracing(runtime.service),
    });
    runtime.defer(async () => identity.close());
    const lastSeen = createLastSeenWriter(pool, logger);
    runtime.defer(lastSeen.stop);
    const readings = await startReadingsConsumer({
      bus,
      logger,
      registry: ops.registry,
      health: runtime.consumerHealth,
      ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
      deadLetters: runtime.deadLetters,
    });
    runtime.defer(readings.stop);

    const tokens = createTokenResolver(identity, { ttlMs: config.AUTH_CACHE_TTL_MS, max: config.AUTH_CACHE_MAX });
    const presence = await startPresence({ pool, topology: bus.topology, logger, heartbeatMs: config.MQTT_PRESENCE_HEARTBEAT_MS });
    // Last: the lease ends after the broker closed its sessions and their writes landed.
    runtime.defer(presence.stop);
    const devices = await createDeviceBroker({ bus, tokens, presence, lastSeen, metrics: ops.registry, logger });
    // Registry writes of the sessions the broker's close ends must land before the pool goes.
    runtime.defer(devices.settle);
    // Revocations missed while NATS was away: the cache forgets, and every live session's token
    // is asked about again, so a device revoked meanwhile does not stay connected.
    const revalidateSessions = async () => {
      tokens.forgetAll();
      const closed = await devices.revalidate();
      if (closed > 0) logger.info({ closed }, "closed device sessions whose token is no longer valid");
      return closed;
    };
    const stopWatching = watchRevocations(bus, {
      onRevoked: ({ tokenId }) => {
        tokens.forget(tokenId);
        devices.revoke(tokenId);
      },
      onGap: () => void revalidateSessions().catch((error: Error) => logger.warn({ err: error.message }, "could not re-validate device sessions")),
    });
    runtime.defer(async () => stopWatching());

    const handler = devices.broker.handle as (socket: net.Socket) => void;
    const tlsFiles =
      config.MQTT_TLS_CERT_FILE && config.MQTT_TLS_KEY_FILE ? { certFile: config.MQTT_TLS_CERT_FILE, keyFile: config.MQTT_TLS_KEY_FILE } : undefined;
    let server: net.Server;
    if (tlsFiles) {
      const material = await readTlsFiles(tlsFiles);
      const tlsServer = tls.createServer(material, handler);
      // A renewed certificate is served to new connections without a restart.
      const stopReloading = reloadCertificateOnChange(tlsServer, tlsFiles, material, { logger, intervalMs: config.MQTT_TLS_RELOAD_INTERVAL_MS });
      runtime.defer(async () => stopReloading());
      server = tlsServer;
    } else {
      server = net.createServer(handler);
    }
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.MQTT_PORT, config.BIND_HOST, () => resolve());
    });
    runtime.defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
    runtime.defer(() => new Promise<void>((resolve) => devices.broker.close(() => resolve())));

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [MqttGatewayServiceService, createMqttGatewayHandlers({ pool, bus, lastSeen }, logger)],
    ]);
    runtime.defer(grpc.stop);
    const port = (server.address() as net.AddressInfo).port;
    logger.info({ port, grpcPort: grpc.port, tls: Boolean(config.MQTT_TLS_CERT_FILE) }, "mqtt gateway started");
    return {
      port,
      opsPort: runtime.opsPort!,
      grpcPort: grpc.port,
      tls: server instanceof tls.Server,
      sendCommand: devices.sendCommand,
      revalidateSessions,
      stop: runtime.stop,
    };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
