// Live device sessions: who is connected with which sensor token, closing a session when its token
// is revoked or expires, and re-validating every live token after revocations may have been missed.
import type { Client } from "aedes";
import { LRUCache } from "lru-cache";
import { Counter, type Registry } from "prom-client";
import type { TokenPrincipal, TokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { AppError } from "@waybill/platform/errors.js";
import type { Logger } from "@waybill/platform/logger.js";
import type { DeviceRef } from "./device-registry.js";
import type { Presence } from "./presence.js";

/** setTimeout's longest delay; a later expiry re-arms the timer. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long a revocation is remembered, for connects that had passed the token check already. */
const REVOKED_MEMORY_MS = 10 * 60_000;
const REVOKED_MEMORY_MAX = 100_000;
/** Tokens asked about at once when re-validating after a revocation gap. */
const REVALIDATE_CONCURRENCY = 16;

export interface DeviceSession {
  deviceId: string;
  principal: TokenPrincipal;
  /** The sensor token, in memory only: re-validated with identity after a revocation gap. */
  token: string;
  /** The registry write of the connect, so the disconnect and the session's messages come after it. */
  connected?: Promise<void>;
  /** That write has settled: messages go out at once, without waiting on the promise. */
  connectedSettled?: boolean;
  expiry?: NodeJS.Timeout;
}

export interface DeviceSessionsDeps {
  tokens: TokenResolver;
  presence: Pick<Presence, "connected" | "disconnected">;
  metrics: Registry;
  logger: Logger;
}

export interface DeviceSessions {
  /** The session of an authenticated client, if any. */
  get(client: Client): DeviceSession | undefined;
  /** Whether the token was revoked recently (a connect still on its way in must be refused). */
  isRevoked(tokenId: string): boolean;
  /** The token check passed: remembers the session for the hooks that follow. */
  authenticated(client: Client, session: DeviceSession): void;
  /** aedes accepted the connection: records presence, arms the expiry. */
  connected(client: Client): void;
  disconnected(client: Client): void;
  revoke(tokenId: string): void;
  /** Asks identity about every live session's token again; resolves to how many sessions it closed. */
  revalidate(): Promise<number>;
  /** Waits for the registry writes still in flight. */
  settle(): Promise<void>;
}

export const isExpired = (principal: TokenPrincipal, now = Date.now()) => principal.expiresAtMs !== 0 && principal.expiresAtMs <= now;

export const deviceRefOf = (session: DeviceSession): DeviceRef => ({
  tenantId: session.principal.tenantId,
  deviceId: session.deviceId,
  tokenId: session.principal.credentialId,
});

export function createDeviceSessions(deps: DeviceSessionsDeps): DeviceSessions {
  const { tokens, logger } = deps;
  const sessions = new WeakMap<Client, DeviceSession>();
  // Live connections per token, so a revocation can close them at once.
  const clientsByToken = new Map<string, Set<Client>>();
  const revoked = new LRUCache<string, true>({ max: REVOKED_MEMORY_MAX, ttl: REVOKED_MEMORY_MS });
  const writes = new Set<Promise<void>>();
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

  return {
    get: (client) => sessions.get(client),
    isRevoked: (tokenId) => revoked.has(tokenId),
    authenticated(client, session) {
      sessions.set(client, session);
    },
    connected(client) {
      const session = sessions.get(client);
      if (!session) return;
      const live = clientsByToken.get(session.principal.credentialId) ?? new Set<Client>();
      clientsByToken.set(session.principal.credentialId, live.add(client));
      session.connected = track(deps.presence.connected(deviceRefOf(session)), "connect", deviceRefOf(session));
      void session.connected.then(() => {
        session.connectedSettled = true;
      });
      // A revocation that arrived between the token check and now found no connection to close.
      if (revoked.has(session.principal.credentialId)) return end(client, "revoked");
      armExpiry(client, session);
    },
    disconnected(client) {
      const session = sessions.get(client);
      if (!session) return;
      clearTimeout(session.expiry);
      const live = clientsByToken.get(session.principal.credentialId);
      live?.delete(client);
      if (live?.size === 0) clientsByToken.delete(session.principal.credentialId);
      const ref = deviceRefOf(session);
      track(
        (session.connected ?? Promise.resolve()).then(() => deps.presence.disconnected(ref)),
        "disconnect",
        ref,
      );
    },
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
              (principal) => principal.tokenType === "sensor" && principal.credentialId === tokenId && !isExpired(principal),
              // Identity unreachable: keep the session; the next gap or revocation asks again.
              (error: unknown) => !(error instanceof AppError && error.status === 401),
            );
            if (valid) return;
            for (const client of clients) end(client, "invalid");
            closed += clients.length;
          }),
        );
      }
      return closed;
    },
    async settle() {
      while (writes.size > 0) await Promise.all(writes);
    },
  };
}
