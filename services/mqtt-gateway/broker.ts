// The aedes broker's hooks: sensor-token authentication, topic rules, and QoS 1 publishes that
// are acknowledged only after INGRESS stored them. Sessions are recorded in the device registry.
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { Counter, type Registry } from "prom-client";
import type { TokenPrincipal, TokenResolver } from "../identity/token-resolver.js";
import { AppError } from "../platform/errors.js";
import type { Logger } from "../platform/logger.js";
import type { Bus } from "../platform/nats.js";
import { recordConnected, recordDisconnected, type DeviceRef, type DeviceRegistryDeps } from "./device-registry.js";
import { parseDevicePayload } from "./ingress.js";
import { publishDeviceMessage } from "./ingress-publisher.js";
import type { LastSeenWriter } from "./last-seen.js";
import { DEVICE_ID_PATTERN, maySubscribe, publishableLevels } from "./topics.js";

const BAD_USERNAME_OR_PASSWORD = 4;
const SERVER_UNAVAILABLE = 3;

interface DeviceSession {
  deviceId: string;
  principal: TokenPrincipal;
  /** The registry write of the connect, so the disconnect is written after it. */
  connected?: Promise<void>;
}

export interface DeviceBrokerDeps {
  bus: Bus;
  tokens: TokenResolver;
  registry: DeviceRegistryDeps;
  lastSeen: LastSeenWriter;
  metrics: Registry;
  logger: Logger;
}

export interface DeviceBroker {
  broker: Aedes;
  /** Closes every live session of a token (it was revoked). */
  closeSessionsOf(tokenId: string): void;
  /** Waits for the registry writes still in flight. */
  settle(): Promise<void>;
}

export async function createDeviceBroker(deps: DeviceBrokerDeps): Promise<DeviceBroker> {
  const { bus, tokens, logger } = deps;
  const sessions = new WeakMap<Client, DeviceSession>();
  // Live connections per token, so a revocation can close them at once.
  const clientsByToken = new Map<string, Set<Client>>();
  const writes = new Set<Promise<void>>();
  const dropped = new Counter({ name: "waybill_mqtt_messages_dropped_total", help: "Device messages dropped at the broker", labelNames: ["reason"], registers: [deps.metrics] });
  const stored = new Counter({ name: "waybill_mqtt_messages_stored_total", help: "Device messages stored in INGRESS", registers: [deps.metrics] });

  const track = (write: Promise<void>, what: string, ref: DeviceRef) => {
    const safe = write.catch((error: Error) => logger.warn({ err: error.message, deviceId: ref.deviceId }, `could not record device ${what}`));
    writes.add(safe);
    void safe.finally(() => writes.delete(safe));
    return safe;
  };
  const refOf = (session: DeviceSession): DeviceRef => ({ tenantId: session.principal.tenantId, deviceId: session.deviceId, tokenId: session.principal.credentialId });

  const broker = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      const refuse = (code: number) => done(Object.assign(new Error("refused"), { returnCode: code }) as AuthenticateError, false);
      if (!username || !DEVICE_ID_PATTERN.test(username) || !password) return refuse(BAD_USERNAME_OR_PASSWORD);
      tokens.resolve(password.toString("utf8")).then(
        (principal) => {
          if (principal.tokenType !== "sensor") return refuse(BAD_USERNAME_OR_PASSWORD);
          sessions.set(client, { deviceId: username, principal });
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
      if (!client) return done(null); // the broker's own messages
      const session = sessions.get(client);
      const levels = session && publishableLevels(session.deviceId, packet.topic);
      if (!session || !levels) return done(new Error("publish not allowed on this topic"));
      const ref = refOf(session);
      deps.lastSeen.seen(ref);
      const parsed = parseDevicePayload(packet.payload);
      if (!parsed.ok) {
        // Dropped, not stored: answered so the device does not resend what can never be taken.
        dropped.inc({ reason: parsed.reason });
        logger.warn({ deviceId: session.deviceId, topic: packet.topic, reason: parsed.reason }, "device message dropped");
        return done(null);
      }
      const write = publishDeviceMessage(bus, { ...ref, channel: levels, payload: parsed.value }).then(() => void stored.inc());
      if (packet.qos === 0) {
        write.catch((error: Error) => logger.warn({ err: error.message }, "QoS 0 device message lost"));
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

  broker.on("client", (client) => {
    const session = sessions.get(client);
    if (!session) return;
    const live = clientsByToken.get(session.principal.credentialId) ?? new Set<Client>();
    clientsByToken.set(session.principal.credentialId, live.add(client));
    session.connected = track(recordConnected(deps.registry, refOf(session)), "connect", refOf(session));
  });

  broker.on("clientDisconnect", (client) => {
    const session = sessions.get(client);
    if (!session) return;
    const live = clientsByToken.get(session.principal.credentialId);
    live?.delete(client);
    if (live?.size === 0) clientsByToken.delete(session.principal.credentialId);
    const ref = refOf(session);
    track((session.connected ?? Promise.resolve()).then(() => recordDisconnected(deps.registry, ref)), "disconnect", ref);
  });

  return {
    broker,
    closeSessionsOf(tokenId) {
      for (const client of clientsByToken.get(tokenId) ?? []) {
        logger.info({ deviceId: sessions.get(client)?.deviceId, tokenId }, "closing device session of a revoked token");
        client.close();
      }
    },
    async settle() {
      while (writes.size > 0) await Promise.all(writes);
    },
  };
}
