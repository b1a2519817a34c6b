// The dispatcher: consumes EVENTS into the tenant event log and attempts each event's deliveries to
// the hooks subscribed to its kind straight away; DELIVERIES carries retries, re-deliveries and what
// a hook could not take at once. Serves hooks, executions and the event log over gRPC.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Counter, Gauge, Histogram } from "prom-client";
import { DispatcherServiceService } from "@waybill/contracts/gen/waybill/dispatcher/v1/dispatcher.js";
import { startConsumer } from "@waybill/platform/consumer.js";
import { createPool } from "@waybill/platform/db.js";
import { startGrpcServer } from "@waybill/platform/grpc.js";
import { TENANT_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { createOutboxRelay } from "@waybill/platform/outbox.js";
import { startAutoDisable } from "./auto-disable.js";
import { checkIncomingEvent } from "./incoming-event.js";
import { PoisonMessage } from "@waybill/platform/dead-letters.js";
import { startRetention } from "./retention.js";
import type { ServiceHandle } from "@waybill/platform/run-main.js";
import { type ServiceSchema, startRuntime } from "@waybill/platform/runtime.js";
import { DELIVERIES_STREAM } from "./deliveries-stream.js";
import type { DispatcherConfig } from "./config.js";
import { startDeliveriesConsumer } from "./deliveries-consumer.js";
import { createDeliverer } from "./delivery.js";
import { recordedRetryOrderer } from "./ordered-redelivery.js";
import { createEventIntake, type Intake } from "./event-intake.js";
import { createEventDeliveries } from "./event-deliveries.js";
import { createDeliveryScheduler } from "./delivery-scheduler.js";
import { dispatcherGrpcHandlers } from "./grpc-handlers.js";
import { createHookUrlCheck } from "./hook-address.js";
import { startHookChanges } from "./hook-changes.js";
import { setUpSecretKeys } from "./secret-key-setup.js";
import { createSender } from "./sender.js";
import { createBatcher } from "@waybill/platform/batcher.js";
import { createDeliveryStore } from "./deliveries-store.js";
import { createBreakerRegistry } from "./circuit-breaker.js";
import { parkDeliveries, releaseInterval, startParkedRelease, type Parked } from "./parked-deliveries.js";
import { enqueueOrdered as enqueueOrderedDeliveries, finishOrdered, isOrdered, type OrderedDelivery } from "./ordered-deliveries.js";

export const DISPATCHER_SCHEMA = "dispatcher";
export const EVENTS_CONSUMER = "dispatcher-events";
export const DELIVERY_POOL_MAX = 4;
/**
 * Events in hand at once. Each waits for its deliveries (at most DIRECT_WAIT_BUDGET_MS in a lane's
 * queue, or while its hook's attempt runs), so this is what keeps lanes fed while some wait.
 */
export const EVENTS_CONCURRENCY = 512;
export const EVENTS_MAX_ACK_PENDING = 2_048;
const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
/** The schema and migrations of dispatcher, for startRuntime and the migrate command. */
export const DISPATCHER_SERVICE_SCHEMA: ServiceSchema = { service: "dispatcher", schema: DISPATCHER_SCHEMA, migrationsDir: MIGRATIONS_DIR };

export interface DispatcherHandle extends ServiceHandle {
  grpcPort: number;
  opsPort: number;
}

export async function startDispatcher(config: DispatcherConfig): Promise<DispatcherHandle> {
  const runtime = await startRuntime({ ...DISPATCHER_SERVICE_SCHEMA, config, opsPort: config.OPS_PORT, streams: [DELIVERIES_STREAM] });
  try {
    const { pool, bus, logger, ops } = runtime;
    const registers = [ops.registry];
    const received = new Counter({ name: "waybill_dispatcher_events_received_total", help: "Events consumed from EVENTS", labelNames: ["kind"], registers });
    const attempts = new Counter({ name: "waybill_webhook_attempts_total", help: "Delivery attempts by outcome", labelNames: ["outcome"], registers });
    const attemptSeconds = new Histogram({ name: "waybill_webhook_attempt_duration_seconds", help: "Duration of delivery attempts", registers });
    const dropped = new Counter({
      name: "waybill_webhook_dropped_total",
      help: "Deliveries settled without an attempt: hook paused, hook gone, event before the hook's resume, already delivered, attempts exhausted, left its per-entity queue",
      labelNames: ["reason"],
      registers,
    });
    const deferred = new Counter({
      name: "waybill_webhook_deferred_total",
      help: "Deliveries handed back to JetStream without an attempt",
      labelNames: ["reason"],
      registers,
    });

    const { secrets, stop: stopResealing } = await setUpSecretKeys(config, { pool, logger, registry: ops.registry });
    runtime.defer(stopResealing);
    const sender = createSender({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      connectionsPerHook: config.WEBHOOK_CONCURRENCY_PER_HOOK,
    });
    runtime.defer(sender.close);
    // Deliveries have their own connections, so a burst of events being fanned out never makes
    // them wait for one (nor they the intake).
    const deliveryPool = createPool({
      databaseUrl: config.DATABASE_URL,
      schema: DISPATCHER_SCHEMA,
      max: DELIVERY_POOL_MAX,
      applicationName: "waybill-dispatcher-deliveries",
      logger,
    });
    runtime.defer(() => deliveryPool.end());
    const store = createDeliveryStore(bus);
    const breakers = createBreakerRegistry();
    const parkedGauge = new Gauge({
      name: "waybill_webhook_parked_deliveries",
      help: "Deliveries parked in PostgreSQL while their hook's receiver stays down (at the last release round)",
      registers,
    });
    const released = new Counter({
      name: "waybill_webhook_parked_released_total",
      help: "Parked deliveries sent back to DELIVERIES (a probe, or all of a hook's once it answered)",
      registers,
    });
    const parkedRelease = startParkedRelease({
      pool,
      store,
      logger,
      blockedForMs: (hookId) => breakers.blockedForMs(hookId),
      intervalMs: releaseInterval(config.WEBHOOK_PARK_AFTER),
      onRound: (parked) => parkedGauge.set(parked),
      onReleased: (count) => released.inc(count),
    });
    runtime.defer(parkedRelease.stop);
    const park = createBatcher(async (items: Parked[]) => {
      await parkDeliveries(deliveryPool, items);
      for (const { delivery } of items) parkedRelease.parked(delivery.hookId);
      return items.map(() => undefined);
    });
    const hookChanges = await startHookChanges({ databaseUrl: config.DATABASE_LISTEN_URL ?? config.DATABASE_URL, schema: DISPATCHER_SCHEMA, logger });
    runtime.defer(hookChanges.stop);
    const deliverer = createDeliverer({
      db: deliveryPool,
      secrets,
      sender,
      schedule: config.WEBHOOK_RETRY_SCHEDULE,
      logger,
      hookChanges,
      orderRetries: recordedRetryOrderer(bus.topology),
    });

    // One scheduler for both sources of deliveries: a hook's lane and breaker are the same whether
    // its delivery is a new event's or a retry.
    const scheduler = createDeliveryScheduler({
      deliverer,
      logger,
      perHook: config.WEBHOOK_CONCURRENCY_PER_HOOK,
      ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
      breakers,
      parkAfterMs: config.WEBHOOK_PARK_AFTER,
      hasParked: (hookId) => parkedRelease.has(hookId),
      onOutcome: (outcome) => {
        if (outcome.kind === "dropped") dropped.inc({ reason: outcome.reason });
        if (outcome.kind !== "attempted") return;
        if (outcome.execution.outcome === "succeeded") parkedRelease.succeeded(outcome.execution.hookId);
        attempts.inc({ outcome: outcome.execution.outcome });
        attemptSeconds.observe(outcome.execution.durationMs / 1000);
      },
      onDeferred: (reason) => deferred.inc({ reason }),
      onFinished: async (delivery, trace) => {
        if (!isOrdered(delivery)) return;
        const next = await finishOrdered(pool, delivery);
        if (next) await store(next, trace);
      },
    });
    const deliveries = await startDeliveriesConsumer({
      bus,
      scheduler,
      logger,
      ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
      health: runtime.consumerHealth,
      park,
    });

    // Publishes manual and recovery re-deliveries written to the outbox, and webhook.disabled events.
    const relay = createOutboxRelay({ pool, bus, schema: DISPATCHER_SCHEMA, logger });
    await relay.start();
    runtime.defer(relay.stop);
    runtime.defer(
      startAutoDisable({ pool, topology: bus.topology, logger, disableAfterMs: config.WEBHOOK_DISABLE_AFTER, registry: ops.registry, hookChanges }),
    );
    runtime.defer(
      startRetention({
        pool,
        logger,
        registry: runtime.ops.registry,
        periods: { eventsMs: config.RETENTION_EVENTS, executionsMs: config.RETENTION_EXECUTIONS, testEventsMs: config.RETENTION_TEST_EVENTS },
      }),
    );

    const takeEvent = createEventIntake({ pool, signer: deliverer.presigner });
    // Ordered deliveries join their queues in the order events were taken in: one batch at a time.
    const enqueueOrdered = createBatcher(async (items: OrderedDelivery[]) => {
      const heads = await enqueueOrderedDeliveries(pool, items);
      return items.map((d) => heads.has(d.deliveryId));
    });
    const eventDeliveries = createEventDeliveries({ scheduler, store, enqueueOrdered });
    const events = await startConsumer({
      bus,
      stream: bus.topology.eventsStream,
      durable: EVENTS_CONSUMER, // the whole of EVENTS, with no filter (platform/nats-filters.ts)
      ackWaitMs: config.CONSUMER_ACK_WAIT_MS,
      logger,
      health: runtime.consumerHealth,
      // Events handled side by side are recorded together (one statement per batch), and each
      // stays in hand until its deliveries are recorded or stored in DELIVERIES.
      concurrency: EVENTS_CONCURRENCY,
      maxAckPending: EVENTS_MAX_ACK_PENDING,
      deadLetters: runtime.deadLetters,
      admit: eventDeliveries.admit,
      handle: async (message) => {
        const tenantId = message.headers?.get(TENANT_ID_NATS_HEADER);
        let intake: Intake;
        try {
          // Checked before batching: a message that can never be recorded goes to the dead letters
          // at once instead of failing the batch it would join.
          if (!tenantId) throw new PoisonMessage("event without a tenant header");
          const eventJson = message.string();
          intake = await takeEvent(tenantId, checkIncomingEvent(eventJson), eventJson, message.info.streamSequence);
        } finally {
          eventDeliveries.release();
        }
        if (intake.fresh) {
          received.inc({ kind: intake.event.kind });
          logger.debug({ eventId: intake.event.id, kind: intake.event.kind, tenantId, deliveries: intake.deliveries.length }, "event received");
        }
        // Acknowledged only once its record has committed too: its deliveries may go before that.
        const [committed, delivered] = await Promise.allSettled([intake.committed, eventDeliveries.deliver(message, intake.deliveries)]);
        if (committed.status === "rejected") throw committed.reason;
        if (delivered.status === "rejected") throw delivered.reason;
      },
    });
    // At shutdown, in this order: both consumers stop pulling; then the events in hand finish
    // while the scheduler hands back what is queued and gives running attempts a grace period.
    runtime.defer(() => Promise.all([events.stop(), scheduler.stop()]).then(() => undefined));
    runtime.defer(deliveries.stop);

    const grpc = await startGrpcServer(config.BIND_HOST, config.GRPC_PORT, [
      [
        DispatcherServiceService,
        dispatcherGrpcHandlers(
          { pool, topology: bus.topology, secrets, deliverer, checkUrl: createHookUrlCheck(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS), hookChanges },
          logger,
        ),
      ],
    ]);
    runtime.defer(grpc.stop);
    logger.info({ grpcPort: grpc.port }, "dispatcher started");
    return { grpcPort: grpc.port, opsPort: runtime.opsPort!, stop: runtime.stop };
  } catch (error) {
    await runtime.stop();
    throw error;
  }
}
