// The aedes broker's hooks: sensor-token authentication, topic rules, tenant scoping
// (tenant-scope.ts), and QoS 1 publishes that are acknowledged only after INGRESS stored them.
// A session ends when its token is revoked or expires.
import { Aedes, type AuthenticateError, type Client, type PublishPacket, type UnsubscribePacket } from "aedes";
import { LRUCache } from "lru-cache";
import { Counter, type Registry } from "prom-client";
import type { TokenPrincipal, TokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { AppError, ValidationError } from "@waybill/platform/errors.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { Bus } from "@waybill/platform/nats.js";
import type { DeviceRef } from "./device-registry.js";
import { DROP_REASONS, parseDevicePayload, type DropReason } from "./ingress.js";
import { publishDeviceMessage } from "./ingress-publisher.js";
import type { LastSeenWriter } from "./last-seen.js";
import type { Presence } from "./presence.js";
import { createRetransmissions } from "./retransmissions.js";
import { DROPPED_TOPIC, scopedClientId, scopedTopic, unscopedTopic } from "./tenant-scope.js";
import { DEVICE_ID_PATTERN, maySubscribe, publishableLevels, storedChannel } from "./topics.js";

const BAD_USERNAME_OR_PASSWORD = 4;
const SERVER_UNAVAILABLE = 3;
/** setTimeout's longest delay; a later expiry re-arms the timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long a revocation is remembered, for connects that had passed the token check already. */
const REVOKED_MEMORY_MS = 10 * 60_000;
const REVOKED_MEMORY_MAX = 100_000;
/** Tokens asked about at once when re-validating after a revocation gap. */
const REVALIDATE_CONCURRENCY = 16;

interface DeviceSession {
  deviceId: string;
  principal: TokenPrincipal;
  /** The sensor token, in memory only: re-validated with identity after a revocation gap. */
  token: string;
  /** The registry write of the connect, so the disconnect is written after it. */
  connected?: Promise<void>;
  expiry?: NodeJS.Timeout;
}

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

const expired = (principal: TokenPrincipal, now = Date.now()) => principal.expiresAtMs !== 0 && principal.expiresAtMs <= now;

export async function createDeviceBroker(deps: DeviceBrokerDeps): Promise<DeviceBroker> {
  const { bus, tokens, logger } = deps;
  const sessions = new WeakMap<Client, DeviceSession>();
  // Live connections per token, so a revocation can close them at once.
  const clientsByToken = new Map<string, Set<Client>>();
  const revoked = new LRUCache<string, true>({ max: REVOKED_MEMORY_MAX, ttl: REVOKED_MEMORY_MS });
  const retransmissions = createRetransmissions();
  const writes = new Set<Promise<void>>();
  const dropped = new Counter({
    name: "waybill_mqtt_messages_dropped_total",
    help: "Device messages acknowledged but not stored, by reason",
    labelNames: ["reason"],
    registers: [deps.metrics],
  });
  // Every reason shows from the start (at 0), so dashboards and alerts can name them.
  for (const reason of DROP_REASONS) dropped.inc({ reason }, 0);
  const stored = new Counter({ name: "waybill_mqtt_messages_stored_total", help: "Device messages stored in INGRESS", registers: [deps.metrics] });
  const closedSessions = new Counter({
    name: "waybill_mqtt_sessions_closed_total",
    help: "Device sessions closed by the gateway",
    labelNames: ["reason"],
    registers: [deps.metrics],
  });

  const track = (write: Promise<void>, what: string, ref: DeviceRef) => {
    const safe = write.catch((error: Error) => logger.warn({ err: error.message, deviceId: ref.deviceId }, `could not record device ${what}`));
    writes.add(safe);
    void safe.finally(() => writes.delete(safe));
    return safe;
  };
  const refOf = (session: DeviceSession): DeviceRef => ({
    tenantId: session.principal.tenantId,
    deviceId: session.deviceId,
    tokenId: session.principal.credentialId,
  });
  const end = (client: Client, reason: "revoked" | "expired" | "invalid") => {
    const session = sessions.get(client);
    if (client.closed) return;
    closedSessions.inc({ reason });
    logger.info({ deviceId: session?.deviceId, tokenId: session?.principal.credentialId, reason }, "closing device session");
    client.close();
  };
  // Closes the session when its token expires (timers are capped, so long expiries re-arm).
  const armExpiry = (client: Client, session: DeviceSession) => {
    if (session.principal.expiresAtMs === 0) return;
    const wait = session.principal.expiresAtMs - Date.now();
    if (wait <= 0) return end(client, "expired");
    session.expiry = setTimeout(() => armExpiry(client, session), Math.min(wait, MAX_TIMER_MS));
    session.expiry.unref();
  };
  const drop = (packet: PublishPacket, session: DeviceSession, reason: DropReason, detail: string) => {
    dropped.inc({ reason });
    logger.warn({ deviceId: session.deviceId, topic: packet.topic, reason, detail }, "device message dropped");
    // Acknowledged, so the device does not resend what can never be taken, but forwarded nowhere.
    packet.topic = DROPPED_TOPIC;
  };

  const broker = await Aedes.createBroker({
    authenticate(client, username, password, done) {
      const refuse = (code: number) => done(Object.assign(new Error("refused"), { returnCode: code }) as AuthenticateError, false);
      if (!username || !DEVICE_ID_PATTERN.test(username) || !password) return refuse(BAD_USERNAME_OR_PASSWORD);
      const token = password.toString("utf8");
      tokens.resolve(token).then(
        (principal) => {
          if (principal.tokenType !== "sensor" || expired(principal) || revoked.has(principal.credentialId)) return refuse(BAD_USERNAME_OR_PASSWORD);
          // One client-id namespace per tenant and device: a device that picks another's client id
          // can neither kick it nor take over its persistent session.
          (client as { id: string }).id = scopedClientId(principal.tenantId, username, client.id);
          sessions.set(client, { deviceId: username, principal, token });
          done(null, true);
        },
        (error: unknown) => refuse(error instanceof AppError && error.status === 401 ? BAD_USERNAME_OR_PASSWORD : SERVER_UNAVAILABLE),
      );
    },
    authorizeSubscribe(client, subscription, done) {
      const session = sessions.get(client);
      if (!session || expired(session.principal)) return done(new Error("session is not valid"));
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
    authorizePublish(client, packet, done) {
      if (!client) {
        // A will left behind by a session that is gone: no tenant to scope it to, so it goes nowhere.
        packet.topic = DROPPED_TOPIC;
        return done(null);
      }
      const session = sessions.get(client);
      if (!session) return done(new Error("not authenticated"));
      if (expired(session.principal)) return done(new Error("token expired"));
      const levels = publishableLevels(session.deviceId, packet.topic);
      if (!levels) return done(new Error("publish not allowed on this topic"));
      const ref = refOf(session);
      deps.lastSeen.seen(ref);
      // Nothing reads retained device messages; keeping them would only grow memory.
      packet.retain = false;
      const channel = storedChannel(levels);
      if (!channel) {
        drop(packet, session, "unknown_channel", `no consumer takes ${packet.topic}`);
        return done(null);
      }
      const parsed = parseDevicePayload(packet.payload, channel);
      if (!parsed.ok) {
        drop(packet, session, parsed.reason, parsed.detail);
        return done(null);
      }

      const deviceTopic = packet.topic;
      packet.topic = scopedTopic(ref.tenantId, deviceTopic);
      const attempt =
        packet.qos > 0 && packet.messageId !== undefined
          ? { clientId: client.id, packetId: packet.messageId, topic: deviceTopic, payload: packet.payload }
          : undefined;
      // A persistent session resends an unacknowledged publish under the same packet id.
      const messageId = attempt && retransmissions.messageIdFor(attempt, !client.clean || packet.dup);
      const write = publishDeviceMessage(bus, { ...ref, channel: [channel], payload: parsed.value, messageId }).then(() => void stored.inc());
      if (packet.qos === 0) {
        write.catch((error: Error) => logger.warn({ err: error.message }, "QoS 0 device message lost"));
        return done(null);
      }
      // QoS 1/2: no PUBACK before the store confirmed; on failure the connection closes and
      // the device resends the unacknowledged message after reconnecting.
      write.then(
        () => {
          // On a closed connection the PUBACK is lost: keep the id for the resend that follows.
          if (attempt && !client.closed) retransmissions.acknowledged(attempt);
          done(null);
        },
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
    session.connected = track(deps.presence.connected(refOf(session)), "connect", refOf(session));
    // A revocation that arrived between the token check and now found no connection to close.
    if (revoked.has(session.principal.credentialId)) return end(client, "revoked");
    armExpiry(client, session);
  });

  broker.on("clientDisconnect", (client) => {
    const session = sessions.get(client);
    if (!session) return;
    clearTimeout(session.expiry);
    const live = clientsByToken.get(session.principal.credentialId);
    live?.delete(client);
    if (live?.size === 0) clientsByToken.delete(session.principal.credentialId);
    const ref = refOf(session);
    track(
      (session.connected ?? Promise.resolve()).then(() => deps.presence.disconnected(ref)),
      "disconnect",
      ref,
    );
  });

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
    revoke(tokenId) {
      revoked.set(tokenId, true);
      for (const client of clientsByToken.get(tokenId) ?? []) end(client, "revoked");
    },
    async revalidate() {
      // One identity lookup per token, whatever number of sessions it has.
      const byToken = new Map<string, { token: string; clients: Client[] }>();
      for (const [tokenId, clients] of clientsByToken) {
        const first = clients.values().next().value;
        if (first) byToken.set(tokenId, { token: sessions.get(first)!.token, clients: [...clients] });
      }
      let closed = 0;
      const entries = [...byToken.entries()];
      for (let i = 0; i < entries.length; i += REVALIDATE_CONCURRENCY) {
        await Promise.all(
          entries.slice(i, i + REVALIDATE_CONCURRENCY).map(async ([tokenId, { token, clients }]) => {
            const valid = await tokens.resolve(token).then(
              (principal) => principal.tokenType === "sensor" && principal.credentialId === tokenId && !expired(principal),
              // Identity unreachable: keep the session; the next gap or revocation asks again.
              (error: unknown) => (error instanceof AppError && error.status === 401 ? false : true),
            );
            if (valid) return;
            for (const client of clients) end(client, "invalid");
            closed += clients.length;
          }),
        );
      }
      return closed;
    },
    sendCommand(tenantId, deviceId, levels, payload) {
      const deviceTopic = ["devices", deviceId, "commands", ...levels].join("/");
      if (!DEVICE_ID_PATTERN.test(deviceId) || !publishableLevels(deviceId, deviceTopic)) {
        return Promise.reject(new ValidationError("The command topic is not valid.", [{ path: "levels", message: "topic levels of letters, digits, - or _" }]));
      }
      const topic = scopedTopic(tenantId, deviceTopic);
      return new Promise((resolve, reject) =>
        broker.publish({ cmd: "publish", topic, payload: Buffer.from(payload), qos: 1, retain: false, dup: false }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
    },
    async settle() {
      while (writes.size > 0) await Promise.all(writes);
    },
  };
}
