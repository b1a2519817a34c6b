// What every back-end service starts with: the ops endpoints (first, so probes see it starting),
// logger, its database schema (migrated, or waited for), its installation's claim on the streams,
// the bus with its streams. Resources are stopped in reverse order of start.
import { createPool, ensureDatabase, type Pool } from "./db.js";
import { ensureInstallationId } from "./installation.js";
import { migrate, pendingMigrations, PLATFORM_MIGRATIONS_DIR } from "./migrations.js";
import { startHousekeeping } from "./housekeeping.js";
import { createLogger, logDestination, type Logger } from "./logger.js";
import { createConsumerHealth, type ConsumerHealth } from "./consumer-health.js";
import { createDeadLetters, type DeadLetters } from "./dead-letters.js";
import { connectBus, createTopology, ensureStreams, type Bus, type StreamDeclaration } from "./nats.js";
import { createOps, startOpsServer, type Ops, type ReadinessCheck } from "./ops.js";
import { startTracing, type TracingConfig } from "./tracing.js";
import { claimStreams } from "./stream-claims.js";
import { startOutboxAgeGauge } from "./outbox-age.js";

export interface RuntimeConfig extends TracingConfig {
  DATABASE_URL: string;
  DB_POOL_MAX: number;
  NATS_URL: string;
  NATS_STREAM_REPLICAS: number;
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  READINESS_CHECK_INTERVAL_MS: number;
  READINESS_CHECK_TIMEOUT_MS: number;
  LOG_LEVEL: string;
  LOG_FILE?: string;
  BIND_HOST: string;
  STREAM_PREFIX: string;
  CONSUMER_STALL_WINDOW_MS: number;
  CONSUMER_ACK_WAIT_MS: number;
  /** Absent: true (see config.ts). */
  MIGRATE_AT_START?: boolean;
  MIGRATION_LOCK_TIMEOUT_MS?: number;
  MIGRATION_STATEMENT_TIMEOUT_MS?: number;
  STREAMS_TAKE_OVER_FROM?: string;
}

export interface Runtime {
  service: string;
  logger: Logger;
  pool: Pool;
  bus: Bus;
  ops: Ops;
  /** The installation this service's database belongs to (installation.ts). */
  installationId: string;
  /** Watches the progress of the service's consumers (stall → /readyz red, waybill_consumer_stalled). */
  consumerHealth: ConsumerHealth;
  /** Where this service's consumers keep the messages they give up on. */
  deadLetters: DeadLetters;
  /** Registers cleanup to run at stop, before what was registered earlier. */
  defer(fn: () => Promise<void>): void;
  stop(): Promise<void>;
}

/** A service's schema and the migrations that build it: what startRuntime and the migrate command apply. */
export interface ServiceSchema {
  service: string;
  schema: string;
  migrationsDir: string;
  /** Names this service's schema had before; an existing one is renamed to `schema` at start. */
  formerSchemaNames?: string[];
}

export interface RuntimeOptions extends ServiceSchema {
  config: RuntimeConfig;
  /** Where the ops server listens; undefined when the service serves ops itself (the edge). */
  opsPort?: number;
  extraChecks?: Record<string, ReadinessCheck>;
  logger?: Logger;
  /** The streams this service owns besides the shared EVENTS and INGRESS; created at start. */
  streams?: readonly StreamDeclaration[];
}

/** How often a service that does not migrate at start looks whether the migrate command ran. */
export const MIGRATIONS_WAIT_POLL_MS = 2_000;

export async function startRuntime(options: RuntimeOptions): Promise<Runtime & { opsPort?: number }> {
  const { service, schema, config } = options;
  const logger = options.logger ?? createLogger(service, config.LOG_LEVEL, logDestination(config.LOG_FILE));
  const stack: (() => Promise<void>)[] = [];
  let pool: Pool | undefined;
  let bus: Bus | undefined;
  // The ops port comes first, so that probes see a starting service (live, not ready, and why)
  // while migrations or a slow dependency hold the start, instead of a closed port.
  /** What the migrations are doing while they hold the start; undefined once done. */
  let migrations: string | undefined = "running";
  const ops = createOps(service, {
    checks: {
      database: async () => {
        if (!pool) throw new Error("not connected yet");
        await pool.query("SELECT 1");
      },
      nats: async () => {
        if (!bus) throw new Error("not connected yet");
        if (bus.nc.isClosed()) throw new Error("closed");
        await bus.nc.flush();
      },
      ...options.extraChecks,
    },
    intervalMs: config.READINESS_CHECK_INTERVAL_MS,
    timeoutMs: config.READINESS_CHECK_TIMEOUT_MS,
  });
  ops.addCheck("migrations", async () => {
    if (migrations) throw new Error(migrations);
  });
  const stop = async () => {
    ops.setDraining();
    while (stack.length > 0) {
      const fn = stack.pop()!;
      await fn().catch((error) => logger.error({ err: error }, "error while stopping"));
    }
  };
  try {
    // First, so every client and adapter created below sees it; stopped last, after what it traces.
    const tracing = await startTracing(service, config, logger);
    stack.push(() => tracing.stop());
    let opsPort: number | undefined;
    if (options.opsPort !== undefined) {
      const server = await startOpsServer(ops, config.BIND_HOST, options.opsPort);
      opsPort = server.port;
      // The ops server is the last to go, so probes see "draining" while work finishes.
      stack.push(() => server.stop());
    }
    await ensureDatabase(config.DATABASE_URL);
    const db = createPool({ databaseUrl: config.DATABASE_URL, schema, max: config.DB_POOL_MAX, applicationName: `waybill-${service}`, logger });
    pool = db;
    stack.push(() => db.end());
    const installationId = await ensureInstallationId(db);
    await migrateOrWait(db, options, logger, (state) => (migrations = state));
    migrations = undefined;
    const housekeeping = startHousekeeping({ pool: db, logger });
    stack.push(() => housekeeping.stop());

    const connected = await connectBus({
      url: config.NATS_URL,
      user: config.NATS_USER,
      pass: config.NATS_PASSWORD,
      name: `waybill-${service}`,
      topology: createTopology(config.STREAM_PREFIX),
      streams: options.streams,
      logger,
    });
    bus = connected;
    stack.push(() => connected.close());
    await claimStreams(connected, { installationId, service, replicas: config.NATS_STREAM_REPLICAS, takeOverFrom: config.STREAMS_TAKE_OVER_FROM, logger });
    await ensureStreams(connected, logger, config.NATS_STREAM_REPLICAS);

    await ops.checkNow();
    const consumerHealth = createConsumerHealth({ ops, logger, stallWindowMs: config.CONSUMER_STALL_WINDOW_MS });
    stack.push(async () => consumerHealth.stop());
    const deadLetters = createDeadLetters(db, ops.registry);
    const stopOutboxAge = startOutboxAgeGauge(db, ops.registry);
    stack.push(async () => stopOutboxAge());
    return {
      service,
      logger,
      pool: db,
      bus: connected,
      ops,
      installationId,
      consumerHealth,
      deadLetters,
      opsPort,
      defer: (fn) => void stack.push(fn),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Applies the service's migrations (MIGRATE_AT_START, the default), or waits until the migrate
 * command has applied them, reporting what it does through `report` (/readyz's migrations check).
 */
async function migrateOrWait(pool: Pool, options: RuntimeOptions, logger: Logger, report: (state: string) => void): Promise<void> {
  const { schema, config } = options;
  const dirs = [PLATFORM_MIGRATIONS_DIR, options.migrationsDir];
  if (config.MIGRATE_AT_START !== false) {
    report("running");
    const applied = await migrate(pool, schema, dirs, {
      formerSchemaNames: options.formerSchemaNames,
      lockTimeoutMs: config.MIGRATION_LOCK_TIMEOUT_MS,
      statementTimeoutMs: config.MIGRATION_STATEMENT_TIMEOUT_MS,
      logger,
    });
    if (applied.length > 0) logger.info({ schema, applied }, "migrations applied");
    return;
  }
  let logged = false;
  for (;;) {
    const pending = await pendingMigrations(pool, schema, dirs);
    if (pending.length === 0) return;
    report(`waiting for the migrate command (MIGRATE_AT_START=false): ${pending.length} pending, first ${pending[0]}`);
    if (!logged) logger.warn({ schema, pending }, "waiting for the migrate command to apply this service's migrations (MIGRATE_AT_START=false)");
    logged = true;
    await new Promise((resolve) => setTimeout(resolve, MIGRATIONS_WAIT_POLL_MS));
  }
}
