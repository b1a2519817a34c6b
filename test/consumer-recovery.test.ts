// The durable consumer helper on a nats-server of the test's own: it recovers from its durable
// being deleted, from a server that hangs longer than its pull requests live (expired pulls,
// missed heartbeats), and a consumer wedged by its handler is reported stalled (/readyz, metric)
// until it makes progress again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeliveriesConsumer } from "../services/dispatcher/deliveries-consumer.js";
import { createDeliveryScheduler } from "../services/dispatcher/delivery-scheduler.js";
import type { AttemptOutcome, Deliverer } from "../services/dispatcher/delivery.js";
import { CONSUMER_BACKLOG_AGE_METRIC, createConsumerHealth, CONSUMER_STALLED_METRIC } from "@waybill/platform/consumer-health.js";
import { processOnce, startConsumer } from "@waybill/platform/consumer.js";
import { createPool, ensureDatabase, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, ensureStreams, publishDurable, type Bus } from "@waybill/platform/nats.js";
import { createOps } from "@waybill/platform/ops.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";
import { startTestNats, startTestPostgres, type RestartableServer } from "./support/private-servers.js";
import { sleep } from "./webhooks-fixtures.js";
import { DELIVERIES_STREAM, deliveriesSubject } from "../services/dispatcher/deliveries-stream.js";

const PULL_EXPIRES_MS = 2_000;
let nats: RestartableServer;
let env: TestEnvironment;
let pool: Pool;
let bus: Bus;
const logger = createLogger("consumer-recovery-test", process.env.TEST_LOG_LEVEL ?? "silent");

beforeAll(async () => {
  nats = await startTestNats();
  env = await createTestEnvironment({ natsUrl: nats.url });
  await ensureDatabase(env.databaseUrl);
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "recovery_test", applicationName: "consumer-recovery-test" });
  await migrate(pool, "recovery_test", [PLATFORM_MIGRATIONS_DIR]);
  await pool.query("CREATE TABLE applied (id text PRIMARY KEY, n int NOT NULL DEFAULT 1)");
  bus = await connectBus({ url: env.natsUrl, name: "consumer-recovery-test", topology: env.topology, logger, streams: [DELIVERIES_STREAM] });
  await ensureStreams(bus, logger);
}, 60_000);

afterAll(async () => {
  nats?.resume();
  await bus?.close();
  await pool?.end();
  await env?.cleanup();
  await nats?.stop();
}, 60_000);

/** A consumer that applies each id once (inbox) and counts how often each was applied. */
function applyingConsumer(durable: string, subjectToken: string, extra: { pullExpiresMs?: number } = {}) {
  return startConsumer({
    bus,
    stream: env.topology.ingressStream,
    durable,
    filterSubject: env.topology.ingressSubject("ten_x", subjectToken),
    ackWaitMs: 2_000,
    logger,
    ...extra,
    handle: async (message) => {
      const { id } = message.json<{ id: string }>();
      await processOnce(pool, durable, id, async (client) => {
        await client.query("INSERT INTO applied (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET n = applied.n + 1", [id]);
      });
    },
  });
}

const publish = (token: string, ids: string[]) =>
  Promise.all(ids.map((id) => publishDurable(bus, env.topology.ingressSubject("ten_x", token), JSON.stringify({ id }), { msgId: id })));

async function appliedOnce(ids: string[]): Promise<boolean | undefined> {
  const { rows } = await pool.query<{ id: string; n: number }>("SELECT id, n FROM applied WHERE id = ANY($1)", [ids]);
  if (rows.some((r) => r.n !== 1)) throw new Error(`applied twice: ${rows.filter((r) => r.n !== 1).map((r) => r.id)}`);
  return rows.length === ids.length ? true : undefined;
}

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe("a durable consumer", () => {
  it("declares its durable again when it was deleted, and applies every message once", async () => {
    const consumer = await applyingConsumer("recovery-deleted", "deleted");
    try {
      await publish("deleted", ids("del-a", 20));
      await eventually(() => appliedOnce(ids("del-a", 20)), 15_000);
      await bus.jsm.consumers.delete(env.topology.ingressStream, "recovery-deleted");
      await publish("deleted", ids("del-b", 20));
      await eventually(() => appliedOnce([...ids("del-a", 20), ...ids("del-b", 20)]), 30_000, 100);
      // The durable is there again.
      expect((await bus.jsm.consumers.info(env.topology.ingressStream, "recovery-deleted")).config.durable_name).toBe("recovery-deleted");
    } finally {
      await consumer.stop();
    }
  }, 60_000);

  it("pulls again after the server hung longer than its pull requests live", async () => {
    const consumer = await applyingConsumer("recovery-hung", "hung", { pullExpiresMs: PULL_EXPIRES_MS });
    try {
      await publish("hung", ids("hung-a", 10));
      await eventually(() => appliedOnce(ids("hung-a", 10)), 15_000);
      nats.pause();
      await sleep(3 * PULL_EXPIRES_MS);
      nats.resume();
      await publish("hung", ids("hung-b", 10));
      await eventually(() => appliedOnce([...ids("hung-a", 10), ...ids("hung-b", 10)]), 30_000, 100);
    } finally {
      nats.resume();
      await consumer.stop();
    }
  }, 60_000);

  it("is reported stalled while its handler is wedged with messages waiting, and ready again once it moves", async () => {
    const ops = createOps("recovery-test", {});
    const health = createConsumerHealth({ ops, logger, stallWindowMs: 1_000 });
    let release!: () => void;
    const wedged = new Promise<void>((resolve) => (release = resolve));
    const handled: string[] = [];
    const consumer = await startConsumer({
      bus,
      stream: env.topology.ingressStream,
      durable: "recovery-stalled",
      filterSubject: env.topology.ingressSubject("ten_x", "stalled"),
      logger,
      health,
      handle: async (message) => {
        await wedged;
        handled.push(message.json<{ id: string }>().id);
      },
    });
    try {
      expect((await ops.answer("/readyz"))!.status).toBe(200);
      await publish("stalled", ids("stall", 5));
      const red = await eventually(
        async () => {
          const answer = (await ops.answer("/readyz"))!;
          return answer.status === 503 ? JSON.parse(answer.body) : undefined;
        },
        15_000,
        100,
      );
      expect(red.checks.consumers).toContain("recovery-stalled");
      expect((await ops.answer("/metrics"))!.body).toMatch(new RegExp(`${CONSUMER_STALLED_METRIC}\\{consumer="recovery-stalled"[^}]*\\} 1`));
      // The oldest waiting message's age is exported, and grows while nothing moves.
      const age = async () =>
        Number(
          (await ops.answer("/metrics"))!.body.match(new RegExp(`${CONSUMER_BACKLOG_AGE_METRIC}\\{consumer="recovery-stalled"[^}]*\\} ([0-9.e+-]+)`))?.[1],
        );
      const first = await eventually(async () => ((await age()) > 0 ? age() : undefined), 15_000, 100);
      await eventually(async () => ((await age()) > first ? true : undefined), 15_000, 100);
      release();
      await eventually(async () => ((await ops.answer("/readyz"))!.status === 200 ? true : undefined), 15_000, 100);
      expect((await ops.answer("/metrics"))!.body).toMatch(new RegExp(`${CONSUMER_STALLED_METRIC}\\{consumer="recovery-stalled"[^}]*\\} 0`));
      await eventually(async () => (ids("stall", 5).every((id) => handled.includes(id)) ? true : undefined), 15_000);
      await eventually(async () => ((await age()) === 0 ? true : undefined), 15_000, 100);
    } finally {
      release();
      await consumer.stop();
      health.stop();
    }
  }, 60_000);

  it("rides out a PostgreSQL kill -9 while it applies messages: nothing crashes, everything is applied once afterwards", async () => {
    const postgres = await startTestPostgres();
    const dbEnv = await createTestEnvironment({ databaseUrl: postgres.url, natsUrl: nats.url });
    const db = createPool({ databaseUrl: dbEnv.databaseUrl, schema: "db_outage", applicationName: "consumer-recovery-pg", logger });
    try {
      await migrate(db, "db_outage", [PLATFORM_MIGRATIONS_DIR]);
      await db.query("CREATE TABLE applied (id text PRIMARY KEY, n int NOT NULL DEFAULT 1)");
      const consumer = await startConsumer({
        bus,
        stream: env.topology.ingressStream,
        durable: "recovery-pg",
        filterSubject: env.topology.ingressSubject("ten_x", "pg"),
        ackWaitMs: 2_000,
        concurrency: 4,
        logger,
        handle: async (message) => {
          const { id } = message.json<{ id: string }>();
          // Slow enough that transactions are open when the server goes.
          await processOnce(db, "recovery-pg", id, async (client) => {
            await client.query("SELECT pg_sleep(0.02)");
            await client.query("INSERT INTO applied (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET n = applied.n + 1", [id]);
          });
        },
      });
      try {
        const all = [...ids("pg-a", 40), ...ids("pg-b", 20)];
        await publish("pg", ids("pg-a", 40));
        await sleep(150);
        await postgres.kill("SIGKILL");
        await publish("pg", ids("pg-b", 20));
        await sleep(1_000);
        await postgres.start();
        await eventually(
          async () => {
            const { rows } = await db.query<{ id: string; n: number }>("SELECT id, n FROM applied").catch(() => ({ rows: [] as { id: string; n: number }[] }));
            if (rows.some((r) => r.n !== 1)) throw new Error("applied twice");
            return rows.length === all.length ? true : undefined;
          },
          30_000,
          200,
        );
      } finally {
        await consumer.stop();
      }
    } finally {
      await db.end();
      await dbEnv.cleanup().catch(() => {});
      await postgres.stop();
    }
  }, 90_000);

  it("shows a deliveries consumer that takes deliveries but finishes none as stalled, and ready again once attempts finish", async () => {
    const ops = createOps("recovery-deliveries", {});
    const health = createConsumerHealth({ ops, logger, stallWindowMs: 1_000 });
    let release!: () => void;
    const wedged = new Promise<void>((resolve) => (release = resolve));
    const attempted = new Set<string>();
    // Attempts that never end until released: the lane is full, everything else is handed back.
    const deliverer: Pick<Deliverer, "attempt"> = {
      async attempt(delivery): Promise<AttemptOutcome> {
        await wedged;
        attempted.add(delivery.deliveryId);
        return { kind: "dropped", reason: "already delivered" };
      },
    };
    const scheduler = createDeliveryScheduler({ deliverer, logger, perHook: 2, ackWaitMs: 2_000 });
    const consumer = await startDeliveriesConsumer({ bus, scheduler, logger, ackWaitMs: 2_000, health });
    try {
      const deliveryIds = ids("dlv", 20);
      await Promise.all(
        deliveryIds.map((deliveryId) =>
          publishDurable(
            bus,
            deliveriesSubject(env.topology, "hook_1"),
            JSON.stringify({
              deliveryId,
              tenantId: "ten_x",
              hookId: "hook_1",
              trigger: "event",
              eventId: deliveryId,
              eventKind: "order.created",
              eventJson: "{}",
            }),
            { msgId: deliveryId },
          ),
        ),
      );
      const red = await eventually(
        async () => {
          const answer = (await ops.answer("/readyz"))!;
          return answer.status === 503 ? JSON.parse(answer.body) : undefined;
        },
        15_000,
        100,
      );
      expect(red.checks.consumers).toContain("dispatcher-deliveries");
      release();
      await eventually(async () => (deliveryIds.every((id) => attempted.has(id)) ? true : undefined), 30_000, 100);
      await eventually(async () => ((await ops.answer("/readyz"))!.status === 200 ? true : undefined), 15_000, 100);
    } finally {
      release();
      await consumer.stop();
      await scheduler.stop();
      health.stop();
    }
  }, 60_000);
});
