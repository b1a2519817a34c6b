// The edge: the public HTTP API. It owns nothing durable; it authenticates, validates and calls
// the services over gRPC.
import http from "node:http";
import type { Client } from "@grpc/grpc-js";
import { createLogger, logDestination, type Logger } from "@waybill/platform/logger.js";
import { createOps, startOpsServer } from "@waybill/platform/ops.js";
import { startTracing } from "@waybill/platform/tracing.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { createApp } from "./app.js";
import { createBackendClients } from "./clients.js";
import type { EdgeConfig } from "./config.js";
import { watchRevocations } from "@waybill/contracts/identity-client/revocation-watch.js";
import { createTokenResolver } from "@waybill/contracts/identity-client/token-resolver.js";
import { connectBus, createTopology } from "@waybill/platform/nats.js";
import { createSessionVerifier } from "@waybill/contracts/identity-client/session-verifier.js";
import { createEventStreams } from "./events/event-streams.js";
import { memoryRateLimitStore, natsRateLimitStore } from "./rate-limit-store.js";

export const EDGE_SHUTDOWN_GRACE_MS = 10_000;

export interface EdgeHandle extends ServiceHandle {
  port: number;
  opsPort: number;
  url: string;
  /** Event streams open on this edge. */
  openEventStreams(): number;
}

export async function startEdge(config: EdgeConfig, deps: { logger?: Logger } = {}): Promise<EdgeHandle> {
  const logger = deps.logger ?? createLogger("edge", config.LOG_LEVEL, logDestination(config.LOG_FILE));
  // Before the clients, which get the span interceptor when tracing is on.
  const tracing = await startTracing("edge", config, logger);
  const bus = await connectBus({
    url: config.NATS_URL,
    user: config.NATS_USER,
    pass: config.NATS_PASSWORD,
    name: "waybill-edge",
    topology: createTopology(config.STREAM_PREFIX),
    logger,
  });
  const clients = createBackendClients({
    identity: config.IDENTITY_GRPC_URL,
    orders: config.ORDERS_GRPC_URL,
    inventory: config.INVENTORY_GRPC_URL,
    dispatcher: config.DISPATCHER_GRPC_URL,
    mqttGateway: config.MQTT_GATEWAY_GRPC_URL,
  });
  // The edge is ready when it can serve: the backends are shared by every edge replica, so they
  // are reported (/readyz checks, waybill_dependency_up) but do not take this pod out of rotation:
  // without one, only its routes answer 503 (e.g. no gateway: /v1/devices), the rest serve.
  const ops = createOps("edge", {
    informational: {
      identity: () => channelReady(clients.identity, config.READINESS_CHECK_TIMEOUT_MS),
      orders: () => channelReady(clients.orders, config.READINESS_CHECK_TIMEOUT_MS),
      inventory: () => channelReady(clients.inventory, config.READINESS_CHECK_TIMEOUT_MS),
      dispatcher: () => channelReady(clients.dispatcher, config.READINESS_CHECK_TIMEOUT_MS),
      devices: () => channelReady(clients.mqttGateway, config.READINESS_CHECK_TIMEOUT_MS),
      nats: async () => void (await bus.nc.flush()),
    },
    intervalMs: config.READINESS_CHECK_INTERVAL_MS,
    timeoutMs: config.READINESS_CHECK_TIMEOUT_MS,
  });
  const tokens = createTokenResolver(clients.identity, { ttlMs: config.AUTH_CACHE_TTL_MS, max: config.AUTH_CACHE_MAX });
  const sessions = createSessionVerifier(clients.identity);
  // Revoked tokens leave this edge's cache the moment identity announces them; an ended
  // session's access JWTs are refused from then on.
  const stopWatching = watchRevocations(bus, {
    onRevoked: (r) => {
      tokens.forget(r.tokenId);
      if (r.tokenId.startsWith("ses_")) sessions.revoke(r.tokenId);
    },
    onGap: () => tokens.forgetAll(),
  });
  const eventStreams = createEventStreams(
    bus,
    logger,
    {
      heartbeatMs: config.EVENT_STREAM_HEARTBEAT_MS,
      maxPerCredential: config.EVENT_STREAMS_PER_CREDENTIAL,
      drainTimeoutMs: config.EVENT_STREAM_DRAIN_TIMEOUT_MS,
    },
    ops.registry,
  );
  const abandon = async (error: unknown): Promise<never> => {
    ops.setDraining();
    stopWatching();
    clients.close();
    await bus.close();
    await tracing.stop();
    throw error;
  };
  const rateLimitStore =
    config.RATE_LIMIT_STORE === "nats"
      ? await natsRateLimitStore(bus, { prefix: config.STREAM_PREFIX, replicas: config.NATS_STREAM_REPLICAS, logger }).catch(abandon)
      : memoryRateLimitStore();
  const app = createApp({
    logger,
    ops,
    clients,
    tokens,
    sessions,
    eventStreams,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    rateLimit: {
      requests: config.RATE_LIMIT_REQUESTS,
      windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
      loginPerMinute: config.LOGIN_RATE_LIMIT_PER_MINUTE,
      sessionPerMinute: config.SESSION_RATE_LIMIT_PER_MINUTE,
    },
    rateLimitStore,
    trustedProxies: config.TRUSTED_PROXIES,
    consoleDir: config.CONSOLE_DIR,
    answerLogFile: config.ANSWER_LOG_FILE,
  });
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000; // longer than common load balancer idle timeouts
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.HTTP_PORT, config.BIND_HOST, () => resolve());
  }).catch(abandon);
  const opsServer = await startOpsServer(ops, config.BIND_HOST, config.OPS_PORT).catch((error) => {
    server.close();
    return abandon(error);
  });
  const port = (server.address() as { port: number }).port;
  const host = config.BIND_HOST === "0.0.0.0" || config.BIND_HOST === "::" ? "127.0.0.1" : config.BIND_HOST;
  logger.info({ port, opsPort: opsServer.port }, "edge started");
  return {
    port,
    opsPort: opsServer.port,
    url: `http://${host}:${port}`,
    openEventStreams: () => eventStreams.open(),
    async stop() {
      ops.setDraining();
      // Streams never end by themselves: end them so readers reconnect elsewhere and shutdown is not held.
      await eventStreams.closeAll();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, EDGE_SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      clients.close();
      stopWatching();
      await bus.close();
      await opsServer.stop();
      await tracing.stop();
    },
  };
}

function channelReady(client: Client, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => client.waitForReady(Date.now() + timeoutMs, (error) => (error ? reject(new Error("unreachable")) : resolve())));
}
