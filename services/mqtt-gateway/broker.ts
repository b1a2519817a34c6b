// The aedes broker for devices: sensor-token authentication, subscription rules and tenant
// scoping (tenant-scope.ts). Sessions live in device-sessions.ts; the publish path, acknowledged
// only after the bus stored a message, in device-publish.ts.
import { Aedes, type AuthenticateError, type Client, type UnsubscribePacket } from "aedes";
import type { Registry } from "prom-client";
import type { TokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { appError } from "@waybill/contracts/errors/catalog.js";
import { AppError } from "@waybill/platform/errors.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import { createDevicePublishHandler } from "./device-publish.js";
import { createDeviceSessions, isExpired } from "./device-sessions.js";
import type { LastSeenWriter } from "./last-seen.js";
import type { Presence } from "./presence.js";
import { scopedClientId, scopedTopic, unscopedTopic } from "./tenant-scope.js";
import { DEVICE_ID_PATTERN, maySubscribe, publishableLevels } from "./topics.js";

const BAD_USERNAME_OR_PASSWORD = 4;
const SERVER_UNAVAILABLE = 3;

export interface DeviceBrokerDeps {
  bus: Bus;
  tokens: TokenResolver;
  presence: Pick<Presence, "connected" | "disconnected">;
  lastSeen: LastSeenWriter;
  metrics: Registry;
  logger: Logger;
}

export interface DeviceBroker {
  broker: Aedes;
  /** A token was revoked: closes its live sessions, and any connect still on its way in. */
  revoke(tokenId: string): void;
  /** Revocations may have been missed: asks identity about every live session's token again and closes those no longer valid. Resolves to how many sessions were closed. */
  revalidate(): Promise<number>;
  /** Publishes a command to one tenant's device, on devices/<deviceId>/commands/<levels…>. */
  sendCommand(tenantId: string, deviceId: string, levels: string[], payload: string | Buffer): Promise<void>;
  /** Waits for the registry writes still in flight. */
  settle(): Promise<void>;
}

export async function createDeviceBroker(deps: DeviceBrokerDeps): Promise<DeviceBroker> {
  const { bus, tokens, logger } = deps;
  const sessions = createDeviceSessions({ tokens, presence: deps.presence, metrics: deps.metrics, logger });

  const broker = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      const refuse = (code: number) => done(Object.assign(new Error("refused"), { returnCode: code }) as AuthenticateError, false);
      if (!username || !DEVICE_ID_PATTERN.test(username) || !password) return refuse(BAD_USERNAME_OR_PASSWORD);
      const token = password.toString("utf8");
      tokens.resolve(token).then(
        (principal) => {
          if (principal.tokenType !== "sensor" || isExpired(principal) || sessions.isRevoked(principal.credentialId)) return refuse(BAD_USERNAME_OR_PASSWORD);
          // One client-id namespace per tenant and device: a device that picks another's client id
          // can neither kick it nor take over its persistent session.
          (client as { id: string }).id = scopedClientId(principal.tenantId, username, client.id);
          sessions.authenticated(client, { deviceId: username, principal, token });
          done(null, true);
        },
        (error: unknown) => refuse(error instanceof AppError && error.status === 401 ? BAD_USERNAME_OR_PASSWORD : SERVER_UNAVAILABLE),
      );
    },
    authorizeSubscribe(client, subscription, done) {
      const session = sessions.get(client);
      if (!session || isExpired(session.principal)) return done(new Error("session is not valid"));
      const { tenantId } = session.principal;
      // A persistent session's filters come back from the store already scoped.
      const filter = unscopedTopic(tenantId, subscription.topic) ?? subscription.topic;
      if (!maySubscribe(session.deviceId, filter)) return done(new Error("subscription not allowed"));
      // Scoped in place: aedes stores the packet's own subscription objects for persistent sessions.
      subscription.topic = scopedTopic(tenantId, filter);
      done(null, subscription);
    },
    authorizeForward(client, packet) {
      const session = sessions.get(client);
      const topic = session && unscopedTopic(session.principal.tenantId, packet.topic);
      if (!session || !topic || !maySubscribe(session.deviceId, topic)) return null;
      // In place: when aedes replays a persistent session's queue it writes this very packet.
      packet.topic = topic;
      return packet;
    },
    authorizePublish: createDevicePublishHandler({ bus, sessions, lastSeen: deps.lastSeen, metrics: deps.metrics, logger }),
  });

  broker.on("client", (client) => sessions.connected(client));
  broker.on("clientDisconnect", (client) => sessions.disconnected(client));

  // aedes has no unsubscribe hook: a device unsubscribes by the topic it knows, so drop the
  // scoped subscription it stands for (and its stored copy, for a persistent session).
  broker.on("unsubscribe", (filters, client) => {
    const session = sessions.get(client);
    if (!session) return;
    const { tenantId } = session.principal;
    const scoped = filters.filter((f) => unscopedTopic(tenantId, f) === undefined && maySubscribe(session.deviceId, f)).map((f) => scopedTopic(tenantId, f));
    if (scoped.length === 0) return;
    client.unsubscribe({ cmd: "unsubscribe", unsubscriptions: scoped } as UnsubscribePacket, () => {});
    if (!client.clean) {
      const { persistence } = broker as unknown as { persistence: { removeSubscriptions(c: Client, topics: string[]): Promise<unknown> } };
      persistence.removeSubscriptions(client, scoped).catch((error: Error) => logger.warn({ err: error.message }, "could not remove a stored subscription"));
    }
  });

  return {
    broker,
    revoke: sessions.revoke,
    revalidate: sessions.revalidate,
    sendCommand(tenantId, deviceId, levels, payload) {
      const deviceTopic = ["devices", deviceId, "commands", ...levels].join("/");
      if (!DEVICE_ID_PATTERN.test(deviceId) || !publishableLevels(deviceId, deviceTopic)) {
        return Promise.reject(
          appError("validation_failed", "The command topic is not valid.", {
            errors: [{ path: "levels", message: "topic levels of letters, digits, - or _" }],
          }),
        );
      }
      const topic = scopedTopic(tenantId, deviceTopic);
      return new Promise((resolve, reject) =>
        broker.publish({ cmd: "publish", topic, payload: Buffer.from(payload), qos: 1, retain: false, dup: false }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    },
    settle: sessions.settle,
  };
}
