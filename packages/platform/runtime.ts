// What every back-end service starts with: logger, its database schema (migrated), the bus with
// its streams, the ops endpoints. Resources are stopped in reverse order of start.
import { createPool, ensureDatabase, type Pool } from "./db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "./migrations.js";
import { startHousekeeping } from "./housekeeping.js";
import { createLogger, logDestination, type Logger } from "./logger.js";
import { createConsumerHealth, type ConsumerHealth } from "./consumer-health.js";
import { createDeadLetters, type DeadLetters } from "./dead-letters.js";
import { connectBus, createTopology, ensureStreams, type Bus } from "./nats.js";
import { createOps, startOpsServer, type Ops, type ReadinessCheck } from "./ops.js";
import { startOutboxAgeGauge } from "./outbox-age.js";

export interface RuntimeConfig {
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
}

export interface Runtime {
  service: string;
  logger: Logger;
  pool: Pool;
  bus: Bus;
  ops: Ops;
  /** Watches the progress of the service's consumers (stall → /readyz red, waybill_consumer_stalled). */
  consumerHealth: ConsumerHealth;
  /** Where this service's consumers keep the messages they give up on. */
  deadLetters: DeadLetters;
  /** Registers cleanup to run at stop, before what was registered earlier. */
  defer(fn: () => Promise<void>): void;
  stop(): Promise<void>;
}

export interface RuntimeOptions {
  service: string;
  schema: string;
  migrationsDir: string;
  /** Names this service's schema had before; an existing one is renamed to `schema` at start. */
  formerSchemaNames?: string[];
  config: RuntimeConfig;
  /** Where the ops server listens; undefined when the service serves ops itself (the edge). */
  opsPort?: number;
  extraChecks?: Record<string, ReadinessCheck>;
  logger?: Logger;
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime & { opsPort?: number }> {
  const { service, schema, config } = options;
  const logger = options.logger ?? createLogger(service, config.LOG_LEVEL, logDestination(config.LOG_FILE));
  const stack: (() => Promise<void>)[] = [];
  let ops: Ops | undefined;
  const stop = async () => {
    ops?.setDraining();
    while (stack.length > 0) {
      const fn = stack.pop()!;
      await fn().catch((error) => logger.error({ err: error }, "error while stopping"));
    }
  };
  try {
    await ensureDatabase(config.DATABASE_URL);
    const pool = createPool({ databaseUrl: config.DATABASE_URL, schema, max: config.DB_POOL_MAX, applicationName: `waybill-${service}`, logger });
    stack.push(() => pool.end());
    const applied = await migrate(pool, schema, [PLATFORM_MIGRATIONS_DIR, options.migrationsDir], { formerSchemaNames: options.formerSchemaNames });
    if (applied.length > 0) logger.info({ schema, applied }, "migrations applied");
    const housekeeping = startHousekeeping({ pool, logger });
    stack.push(() => housekeeping.stop());

    const bus = await connectBus({
      url: config.NATS_URL,
      user: config.NATS_USER,
      pass: config.NATS_PASSWORD,
      name: `waybill-${service}`,
      topology: createTopology(config.STREAM_PREFIX),
      logger,
    });
    stack.push(() => bus.close());
    await ensureStreams(bus, logger, config.NATS_STREAM_REPLICAS);

    ops = createOps(service, {
      checks: {
        database: async () => void (await pool.query("SELECT 1")),
        nats: async () => {
          if (bus.nc.isClosed()) throw new Error("closed");
          await bus.nc.flush();
        },
        ...options.extraChecks,
      },
      intervalMs: config.READINESS_CHECK_INTERVAL_MS,
      timeoutMs: config.READINESS_CHECK_TIMEOUT_MS,
    });
    await ops.firstRound;
    const consumerHealth = createConsumerHealth({ ops, logger, stallWindowMs: config.CONSUMER_STALL_WINDOW_MS });
    stack.push(async () => consumerHealth.stop());
    let opsPort: number | undefined;
    if (options.opsPort !== undefined) {
      const server = await startOpsServer(ops, config.BIND_HOST, options.opsPort);
      opsPort = server.port;
      // The ops server is the last to go, so probes see "draining" while work finishes.
      stack.unshift(() => server.stop());
    }
    const deadLetters = createDeadLetters(pool, ops.registry);
    const stopOutboxAge = startOutboxAgeGauge(pool, ops.registry);
    stack.push(async () => stopOutboxAge());
    return { service, logger, pool, bus, ops, consumerHealth, deadLetters, opsPort, defer: (fn) => void stack.push(fn), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
