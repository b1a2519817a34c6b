// Poison messages: a message that keeps failing is delivered a bounded number of times, then
// kept as a dead letter (with its error, a metric) while the messages beside it are handled; a
// replay publishes it again. The dispatcher refuses an invalid event before it joins a batch.
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBatcher } from "@waybill/platform/batcher.js";
import { startConsumer } from "@waybill/platform/consumer.js";
import { createPool, ensureDatabase, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { createDeadLetters, listDeadLetters, replayDeadLetter } from "@waybill/platform/dead-letters.js";
import { newId } from "@waybill/platform/ids.js";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, ensureStreams, headers, publishDurable, TENANT_ID_NATS_HEADER, type Bus } from "@waybill/platform/nats.js";
import { client, createCustomer } from "./orders-fixtures.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver } from "./webhooks-fixtures.js";

const logger = createLogger("dead-letters-test", "silent");

describe("a consumer's poison-message policy", () => {
  let env: TestEnvironment;
  let pool: Pool;
  let bus: Bus;
  beforeAll(async () => {
    env = await createTestEnvironment();
    await ensureDatabase(env.databaseUrl);
    pool = createPool({ databaseUrl: env.databaseUrl, schema: "dl_test", applicationName: "dead-letters-test" });
    await migrate(pool, "dl_test", [PLATFORM_MIGRATIONS_DIR]);
    bus = await connectBus({ url: env.natsUrl, name: "dead-letters-test", topology: env.topology, logger });
    await ensureStreams(bus, logger);
  });
  afterAll(async () => {
    await bus?.close();
    await pool?.end();
    await env?.cleanup();
  });

  it("gives up on a message after maxDeliver deliveries, handles its batch-mates, and replays it on request", async () => {
    const registry = new Registry();
    const handled: string[] = [];
    let attemptsAtBad = 0;
    let fixed = false;
    // Items handled together are written together, as the services batch them.
    const write = createBatcher(async (ids: string[]) => {
      if (ids.includes("bad") && !fixed) throw new Error("bad cannot be written");
      handled.push(...ids);
      return ids;
    });
    const consumer = await startConsumer({
      bus,
      stream: env.topology.ingressStream,
      durable: "dl-test",
      filterSubject: env.topology.ingressWildcard,
      logger,
      concurrency: 10,
      ackWaitMs: 2_000,
      maxDeliver: 3,
      deadLetters: createDeadLetters(pool, registry),
      handle: async (message) => {
        const { id } = message.json<{ id: string }>();
        if (id === "bad") attemptsAtBad += 1;
        await write(id);
      },
    });
    try {
      const subject = env.topology.ingressSubject("ten_x", "test");
      for (const id of ["a", "bad", "b", "c"]) await publishDurable(bus, subject, JSON.stringify({ id }), { msgId: `msg-${id}` });
      const [letter] = await eventually(async () => {
        const letters = await listDeadLetters(pool);
        return letters.length > 0 ? letters : undefined;
      }, 30_000);
      expect(letter).toMatchObject({ consumer: "dl-test", error: "bad cannot be written", deliveries: 3, messageId: "msg-bad", replayedAt: null });
      expect(attemptsAtBad).toBe(3);
      expect(handled.sort()).toEqual(["a", "b", "c"]);
      expect(await registry.getSingleMetricAsString("waybill_dead_letters_total")).toMatch(/waybill_dead_letters_total\{consumer="dl-test"\} 1/);

      fixed = true;
      const replayed = await replayDeadLetter(pool, bus, letter.id);
      expect(replayed.replayedAt).not.toBeNull();
      await eventually(async () => (handled.includes("bad") ? true : undefined), 15_000);
      expect(await listDeadLetters(pool)).toEqual([]); // replayed ones are listed only with includeReplayed
    } finally {
      await consumer.stop();
    }
  });
});

describe("the dispatcher's event intake", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("keeps an invalid event as a dead letter at once and delivers the valid ones around it", async () => {
    const receiver = await startReceiver();
    try {
      const call = client(stack);
      await createHook(call, { url: receiver.url, on: "customer.created" });
      const tenant = await tenantIdOf(stack);
      const poisonBus = await connectBus({ url: stack.env.natsUrl, name: "poison", topology: stack.env.topology, logger });
      try {
        const h = headers();
        h.set(TENANT_ID_NATS_HEADER, tenant);
        const before = await createCustomer(call);
        await poisonBus.js.publish(stack.env.topology.eventSubject(tenant, "customer.created"), '{"kind":"customer.created","note":"no id, no time"}', {
          headers: h,
          msgID: newId("evt"),
        });
        const after = await createCustomer(call);
        await eventually(async () => {
          const got = receiver.received.map((r) => r.json?.customerId);
          return got.includes(before) && got.includes(after) ? true : undefined;
        }, 15_000);
      } finally {
        await poisonBus.close();
      }
      const pool = createPool({ databaseUrl: stack.env.databaseUrl, schema: "dispatcher", applicationName: "dead-letters-test" });
      try {
        const [letter] = await eventually(async () => {
          const letters = await listDeadLetters(pool);
          return letters.length > 0 ? letters : undefined;
        });
        expect(letter.consumer).toBe("dispatcher-events");
        expect(letter.deliveries).toBe(1); // refused at once, not retried
        expect(letter.error).toMatch(/event envelope invalid: id: .*time: /);
      } finally {
        await pool.end();
      }
    } finally {
      await receiver.close();
    }
  });
});

async function tenantIdOf(stack: Stack): Promise<string> {
  const pg = (await import("pg")).default;
  const db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  try {
    return (await db.query<{ id: string }>("SELECT id FROM identity.tenants WHERE name = 'default'")).rows[0].id;
  } finally {
    await db.end();
  }
}
