// The identity service: tenants, users, API tokens and session keys over gRPC.
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  IdentityServiceService,
  type CreateTokenRequest,
  type CreateUserRequest,
  type ListSessionsRequest,
  type LoginRequest,
  type RefreshSessionRequest,
  type RevokeSessionRequest,
  type Token as TokenMessage,
} from "@waybill/contracts/gen/waybill/identity/v1/identity.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { startGrpcServer, unary } from "@waybill/platform/grpc.js";
import { createOutboxRelay } from "@waybill/platform/outbox.js";
import { pageLimit } from "@waybill/platform/pagination.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { type ServiceSchema, startRuntime } from "@waybill/platform/runtime.js";
import { REVOCATIONS_STREAM } from "@waybill/contracts/identity/revocations.js";
import { createSealedBox, generateSealingKey, parseSealingKey } from "@waybill/platform/sealed-box.js";
import { createTokenVerifier } from "./token-verifier.js";
import { bootstrapIdentity, type BootstrapResult } from "./bootstrap.js";
import { hasGeneratedSecrets, writeCredentialsFile } from "./bootstrap-credentials.js";
import type { IdentityConfig } from "./config.js";
import { recordRevocation } from "./revocations.js";
import { loadSessionKeys, sessionKeyPolicy, type SessionKeys } from "./session-keys.js";
import { login, issueAccessToken } from "./sessions.js";
import { deleteEndedSessions, listSessions, logoutSession, refreshSession, revokeSession, type EndedSession, type SessionPolicy } from "./session-store.js";
import type { PoolClient } from "@waybill/platform/db.js";
import { createTokenIdempotently, listTokens, revokeToken, type TokenRecord } from "./token-manager.js";
import type { TokenType } from "@waybill/contracts/identity/tokens.js";
import { createUserIdempotently, listUsers } from "./users.js";
import type { Role } from "@waybill/contracts/identity/roles.js";

export const IDENTITY_SCHEMA = "identity";
/** How often sessions that ended more than a day ago are deleted. */
const ENDED_SESSIONS_SWEEP_MS = 60 * 60 * 1000;
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** The schema and migrations of identity, for startRuntime and the migrate command. */
export const IDENTITY_SERVICE_SCHEMA: ServiceSchema = { service: "identity", schema: IDENTITY_SCHEMA, migrationsDir: MIGRATIONS_DIR };

export interface IdentityHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
  /** What the first-start bootstrap did in this start, if it ran. */
  bootstrap?: BootstrapResult;
}

export interface IdentityDeps {
  /**
   * Takes what a first start created, secrets included (the local launcher shows it on its
   * terminal). Without it, generated secrets go to BOOTSTRAP_CREDENTIALS_FILE (mode 0600) and the
   * log says only where.
   */
  announce?: (result: BootstrapResult) => void | Promise<void>;
}

export async function startIdentity(config: IdentityConfig, deps: IdentityDeps = {}): Promise<IdentityHandle> {
  const runtime = await startRuntime({ ...IDENTITY_SERVICE_SCHEMA, config, opsPort: config.OPS_PORT, streams: [REVOCATIONS_STREAM] });
  try {
    const { pool, bus, logger } = runtime;
    const bootstrap = await bootstrapIdentity(pool, {
      apiToken: config.BOOTSTRAP_API_TOKEN,
      adminEmail: config.BOOTSTRAP_ADMIN_EMAIL,
      adminPassword: config.BOOTSTRAP_ADMIN_PASSWORD,
    });
    if (bootstrap) {
      if (deps.announce) await deps.announce(bootstrap);
      else if (hasGeneratedSecrets(bootstrap)) {
        await writeCredentialsFile(config.BOOTSTRAP_CREDENTIALS_FILE, bootstrap);
        logger.warn(
          { file: config.BOOTSTRAP_CREDENTIALS_FILE, tenantId: bootstrap.tenantId, admin: bootstrap.adminEmail },
          "first start: generated credentials written to this file (mode 0600); read them once, then delete it",
        );
      } else
        logger.info({ tenantId: bootstrap.tenantId, admin: bootstrap.adminEmail }, "first start: created tenant default with the configured admin and token");
    }
    // Revocations leave through the outbox (see revocations.ts): the relay retries until
    // JetStream acknowledges them.
    const relay = createOutboxRelay({ pool, bus, schema: IDENTITY_SCHEMA, logger });
    await relay.start();
    runtime.defer(relay.stop);
    if (!config.IDENTITY_SECRET_KEY)
      logger.warn(
        "IDENTITY_SECRET_KEY is not set: session signing keys are sealed with a key that lives only in this process, so each start " +
          "makes a new signing key. Set IDENTITY_SECRET_KEY (base64 of 32 bytes) for anything but a throwaway run.",
      );
    const sealingKey = parseSealingKey(config.IDENTITY_SECRET_KEY ?? generateSealingKey(), "IDENTITY_SECRET_KEY");
    const box = createSealedBox(sealingKey);
    const keyPolicy = sessionKeyPolicy({
      rotateEveryMs: config.SESSION_KEY_ROTATE_EVERY,
      accessTtlSeconds: config.SESSION_TTL_SECONDS,
      checkIntervalMs: config.SESSION_KEY_CHECK_INTERVAL_MS,
    });
    let keys = await loadSessionKeys(pool, box, keyPolicy);
    if (keys.unopened.length > 0 && config.IDENTITY_SECRET_KEY)
      logger.warn(
        { unopened: keys.unopened.length, signingKey: keys.current.kid },
        "some stored session signing keys do not open with IDENTITY_SECRET_KEY (was it changed?); signing with a new key",
      );
    let jwksJson = JSON.stringify(keys.jwks);
    const reportKeys = (loaded: SessionKeys) => {
      if (loaded.retired.length > 0) logger.info({ signingKey: loaded.current.kid, retired: loaded.retired }, "session signing key rotated");
      if (loaded.dropped.length > 0) logger.info({ dropped: loaded.dropped }, "dropped retired session signing keys: every token they signed has expired");
    };
    reportKeys(keys);
    // Re-reading the keys on a timer rotates a due key, takes up one another replica or the admin
    // command made, and drops retired keys once their tokens have expired.
    const keyTimer = setInterval(() => {
      loadSessionKeys(pool, box, keyPolicy)
        .then((loaded) => {
          keys = loaded;
          jwksJson = JSON.stringify(loaded.jwks);
          reportKeys(loaded);
        })
        .catch((error) => logger.warn({ err: error.message }, "could not re-read the session signing keys; signing with the last ones read"));
    }, config.SESSION_KEY_CHECK_INTERVAL_MS);
    keyTimer.unref();
    runtime.defer(async () => clearInterval(keyTimer));
    const signingKey = () => keys.current;
    const policy: SessionPolicy = {
      accessTtlSeconds: config.SESSION_TTL_SECONDS,
      refreshTtlSeconds: config.SESSION_REFRESH_TTL_SECONDS,
      graceSeconds: config.SESSION_REFRESH_GRACE_SECONDS,
    };
    // An ended session goes out like a revoked token: edges stop accepting its access JWTs.
    const announceEnded = (client: PoolClient, ended: EndedSession) => recordRevocation(client, bus.topology, { tenantId: ended.tenantId, tokenId: ended.id });
    const sweepTimer = setInterval(() => {
      deleteEndedSessions(pool).catch((error) => logger.warn({ err: error.message }, "could not delete ended sessions"));
    }, ENDED_SESSIONS_SWEEP_MS);
    sweepTimer.unref();
    runtime.defer(async () => clearInterval(sweepTimer));

    const tokenVerifier = createTokenVerifier(pool);
    const flushTimer = setInterval(() => {
      tokenVerifier.flushLastUsed().catch((error) => logger.warn({ err: error.message }, "could not record token use"));
    }, config.TOKEN_USE_FLUSH_INTERVAL_MS);
    flushTimer.unref();
    runtime.defer(async () => {
      clearInterval(flushTimer);
      await tokenVerifier.flushLastUsed();
    });

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [
        IdentityServiceService,
        {
          resolveToken: unary(logger, async ({ token }: { token: string }) => {
            const principal = await tokenVerifier.verify(token);
            return {
              tenantId: principal.tenantId,
              tokenId: principal.tokenId,
              tokenType: principal.tokenType,
              expiresAtMs: principal.expiresAt?.getTime() ?? 0,
            };
          }),
          login: unary(logger, (request: LoginRequest) =>
            login(pool, signingKey, policy, { email: request.email, password: request.password, remember: request.remember, userAgent: request.userAgent }),
          ),
          refreshSession: unary(logger, async (request: RefreshSessionRequest) => {
            const session = await refreshSession(pool, request.refreshValue, policy, request.userAgent, announceEnded);
            const access = await issueAccessToken(signingKey(), session.user, session.id, policy.accessTtlSeconds);
            return { ...access, sessionId: session.id, refreshValue: session.refreshValue, refreshExpiresAt: session.refreshExpiresAt };
          }),
          logout: unary(logger, async ({ refreshValue }: { refreshValue: string }) => {
            await logoutSession(pool, refreshValue, announceEnded);
            return {};
          }),
          listSessions: unary(logger, async (request: ListSessionsRequest) => {
            const sessions = await listSessions(pool, request.tenantId, request.userId);
            return { data: sessions.map((s) => ({ ...s, userAgent: s.userAgent ?? undefined, current: s.id === request.currentSessionId })) };
          }),
          revokeSession: unary(logger, async (request: RevokeSessionRequest) => {
            await withTransaction(pool, async (client) => announceEnded(client, await revokeSession(client, request.tenantId, request.userId, request.id)));
            return {};
          }),
          getSigningKeys: unary(logger, async () => ({ jwksJson })),
          createToken: unary(logger, async (request: CreateTokenRequest) => {
            const { token, value, replayed } = await createTokenIdempotently(
              pool,
              request.tenantId,
              { name: request.name, type: request.type as TokenType, expiresAt: request.expiresAt ?? null },
              request.idempotency,
            );
            return { token: tokenMessage(token), value, replayed };
          }),
          listTokens: unary(logger, async (request: { tenantId: string; limit: number; cursor?: string }) => {
            const page = await listTokens(pool, request.tenantId, pageLimit(request.limit), request.cursor);
            return { data: page.data.map(tokenMessage), nextCursor: page.nextCursor ?? undefined };
          }),
          revokeToken: unary(logger, async ({ tenantId, id }: { tenantId: string; id: string }) => {
            await withTransaction(pool, async (client) => {
              await revokeToken(client, tenantId, id);
              await recordRevocation(client, bus.topology, { tenantId, tokenId: id });
            });
            return {};
          }),
          createUser: unary(logger, (request: CreateUserRequest) =>
            createUserIdempotently(
              pool,
              request.tenantId,
              { email: request.email, password: request.password, role: request.role as Role },
              request.idempotency,
            ),
          ),
          listUsers: unary(logger, async (request: { tenantId: string; limit: number; cursor?: string }) => {
            const page = await listUsers(pool, request.tenantId, pageLimit(request.limit), request.cursor);
            return { data: page.data, nextCursor: page.nextCursor ?? undefined };
          }),
        },
      ],
    ]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "identity started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, bootstrap, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}

function tokenMessage(token: TokenRecord): TokenMessage {
  return {
    ...token,
    expiresAt: token.expiresAt ?? undefined,
    lastUsedAt: token.lastUsedAt ?? undefined,
    revokedAt: token.revokedAt ?? undefined,
  };
}
