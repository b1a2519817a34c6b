// The MQTT gateway: an aedes broker for devices. Devices authenticate with sensor tokens; a QoS 1
// publish is acknowledged only after JetStream INGRESS has stored it.
import { readFile } from "node:fs/promises";
import net from "node:net";
import tls from "node:tls";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { Counter } from "prom-client";
import { ulid } from "ulid";
import { credentials } from "@grpc/grpc-js";
import { IdentityServiceClient } from "../gen/waybill/identity/v1/identity.js";
import { watchRevocations } from "../identity/revocations.js";
import { createTokenResolver, type TokenPrincipal } from "../identity/token-resolver.js";
import { AppError } from "../platform/errors.js";
import { createLogger, type Logger } from "../platform/logger.js";
import { connectBus, createTopology, ensureStreams, publishDurable } from "../platform/nats.js";
import { createOps, startOpsServer } from "../platform/ops.js";
import type { ServiceHandle } from "../platform/run-main.js";
import type { MqttGatewayConfig } from "./config.js";
import { parseDevicePayload, type IngressMessage } from "./ingress.js";
import { DEVICE_ID_PATTERN, maySubscribe, publishableLevels } from "./topics.js";

export interface MqttGatewayHandle extends ServiceHandle {
  port: number;
  opsPort: number;
}

interface DeviceSession {
  deviceId: string;
  principal: TokenPrincipal;
}

const BAD_USERNAME_OR_PASSWORD = 4;
const SERVER_UNAVAILABLE = 3;

export async function startMqttGateway(config: MqttGatewayConfig, deps: { logger?: Logger } = {}): Promise<MqttGatewayHandle> {
  const logger = deps.logger ?? createLogger("mqtt-gateway", config.LOG_LEVEL);
  const bus = await connectBus({ url: config.NATS_URL, name: "waybill-mqtt-gateway", topology: createTopology(config.STREAM_PREFIX), logger });
  const identity = new IdentityServiceClient(config.IDENTITY_GRPC_URL, credentials.createInsecure());
  const cleanup: (() => Promise<void> | void)[] = [() => bus.close(), () => identity.close()];
  try {
    await ensureStreams(bus, logger);
    const tokens = createTokenResolver(identity, { ttlMs: config.AUTH_CACHE_TTL_MS, max: config.AUTH_CACHE_MAX });
    const sessions = new WeakMap<Client, DeviceSession>();
    // Live connections per token, so a revocation can close them at once.
    const clientsByToken = new Map<string, Set<Client>>();
    const stopWatching = watchRevocations(bus, {
      onRevoked: ({ tokenId }) => {
        tokens.forget(tokenId);
        for (const client of clientsByToken.get(tokenId) ?? []) {
          logger.info({ deviceId: sessions.get(client)?.deviceId, tokenId }, "closing device session of a revoked token");
          client.close();
        }
      },
      onGap: () => tokens.forgetAll(),
    });
    cleanup.push(stopWatching);
    const ops = createOps("mqtt-gateway", { nats: async () => void (await bus.nc.flush()) });
    const dropped = new Counter({ name: "waybill_mqtt_messages_dropped_total", help: "Device messages dropped", labelNames: ["reason"], registers: [ops.registry] });
    const stored = new Counter({ name: "waybill_mqtt_messages_stored_total", help: "Device messages stored in INGRESS", registers: [ops.registry] });

    const broker = await Aedes.createBroker({
      authenticate(client, username, password, done) {
        const refuse = (code: number) => done(Object.assign(new Error("refused"), { returnCode: code }) as AuthenticateError, false);
        if (!username || !DEVICE_ID_PATTERN.test(username) || !password) return refuse(BAD_USERNAME_OR_PASSWORD);
        tokens.resolve(password.toString("utf8")).then(
          (principal) => {
            if (principal.tokenType !== "sensor") return refuse(BAD_USERNAME_OR_PASSWORD);
            sessions.set(client, { deviceId: username, principal });
            const live = clientsByToken.get(principal.credentialId) ?? new Set<Client>();
            clientsByToken.set(principal.credentialId, live.add(client));
            done(null, true);
          },
          (error: unknown) => refuse(error instanceof AppError && error.status === 401 ? BAD_USERNAME_OR_PASSWORD : SERVER_UNAVAILABLE),
        );
      },
      authorizeSubscribe(client, subscription, done) {
        const session = sessions.get(client);
        if (!session || !maySubscribe(session.deviceId, subscription.topic)) return done(new Error("subscription not allowed"));
        done(null, subscription);
      },
      authorizePublish(client, packet, done) {
        const session = client ? sessions.get(client) : undefined;
        if (!client) return done(null); // the broker's own messages
        const levels = session && publishableLevels(session.deviceId, packet.topic);
        if (!session || !levels) return done(new Error("publish not allowed on this topic"));
        const parsed = parseDevicePayload(packet.payload);
        if (!parsed.ok) {
          // Dropped, not stored: answered so the device does not resend what can never be taken.
          dropped.inc({ reason: parsed.reason });
          logger.warn({ deviceId: session.deviceId, topic: packet.topic, reason: parsed.reason }, "device message dropped");
          return done(null);
        }
        const message: IngressMessage = {
          tenantId: session.principal.tenantId,
          deviceId: session.deviceId,
          tokenId: session.principal.credentialId,
          channel: levels,
          receivedAt: new Date().toISOString(),
          payload: parsed.value,
        };
        const subject = bus.topology.ingressSubject(message.tenantId, "devices", session.deviceId, ...levels);
        const write = publishDurable(bus, subject, JSON.stringify(message), { msgId: `mqtt-${ulid()}` }).then(() => stored.inc());
        if (packet.qos === 0) {
          write.catch((error) => logger.warn({ err: error.message }, "QoS 0 device message lost"));
          return done(null);
        }
        // QoS 1/2: no PUBACK before the store confirmed; on failure the connection closes and
        // the device resends the unacknowledged message after reconnecting.
        write.then(
          () => done(null),
          (error: Error) => {
            logger.warn({ err: error.message, deviceId: session.deviceId }, "device message not stored; withholding acknowledgement");
            done(error);
          },
        );
      },
    });

    broker.on("clientDisconnect", (client) => {
      const session = sessions.get(client);
      if (!session) return;
      const live = clientsByToken.get(session.principal.credentialId);
      live?.delete(client);
      if (live?.size === 0) clientsByToken.delete(session.principal.credentialId);
    });

    const handler = broker.handle as (socket: net.Socket) => void;
    const server =
      config.MQTT_TLS_CERT_FILE && config.MQTT_TLS_KEY_FILE
        ? tls.createServer({ cert: await readFile(config.MQTT_TLS_CERT_FILE), key: await readFile(config.MQTT_TLS_KEY_FILE) }, handler)
        : net.createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.MQTT_PORT, config.BIND_HOST, () => resolve());
    });
    cleanup.push(() => new Promise<void>((resolve) => broker.close(() => resolve())));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const opsServer = await startOpsServer(ops, config.BIND_HOST, config.OPS_PORT);
    cleanup.unshift(() => opsServer.stop());
    const port = (server.address() as net.AddressInfo).port;
    logger.info({ port, tls: Boolean(config.MQTT_TLS_CERT_FILE) }, "mqtt gateway started");
    return {
      port,
      opsPort: opsServer.port,
      async stop() {
        ops.setDraining();
        await runCleanup(cleanup);
      },
    };
  } catch (error) {
    await runCleanup(cleanup);
    throw error;
  }
}

async function runCleanup(cleanup: (() => Promise<void> | void)[]): Promise<void> {
  while (cleanup.length > 0) await Promise.resolve(cleanup.pop()!()).catch(() => {});
}
