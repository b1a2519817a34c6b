// The idempotent-consumer helper on a real stream: a failed message is redelivered, and a
// message seen twice changes state once.
import { AckPolicy } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processOnce, processOnceBatch, startConsumer } from "@waybill/platform/consumer.js";
import { createPool, ensureDatabase, type Pool } from "@waybill/platform/db.js";
import { migrate, PLATFORM_MIGRATIONS_DIR } from "@waybill/platform/migrations.js";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus, ensureStreams, publishDurable, type Bus } from "@waybill/platform/nats.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { eventually } from "./support/http.js";

let env: TestEnvironment;
let pool: Pool;
let bus: Bus;
const logger = createLogger("consumer-test", "silent");

beforeAll(async () => {
  env = await createTestEnvironment();
  await ensureDatabase(env.databaseUrl);
  pool = createPool({ databaseUrl: env.databaseUrl, schema: "consumer_test", applicationName: "consumer-test" });
  await migrate(pool, "consumer_test", [PLATFORM_MIGRATIONS_DIR]);
  await pool.query("CREATE TABLE counter (id text PRIMARY KEY, n int NOT NULL)");
  await pool.query("INSERT INTO counter VALUES ('c', 0)");
  bus = await connectBus({ url: env.natsUrl, name: "consumer-test", topology: env.topology, logger });
  await ensureStreams(bus, logger);
});
afterAll(async () => {
  await bus?.close();
  await pool?.end();
  await env.cleanup();
});

describe("startConsumer + processOnce", () => {
  it("redelivers a message whose handler failed and applies each logical message once", async () => {
    let attempts = 0;
    const consumer = await startConsumer({
      bus,
      stream: env.topology.ingressStream,
      durable: "consumer-test",
      filterSubject: env.topology.ingressWildcard,
      logger,
      handle: async (message) => {
        attempts += 1;
        if (attempts === 1) throw new Error("transient failure");
        const { id } = message.json<{ id: string }>();
        await processOnce(pool, "consumer-test", id, async (client) => {
          await client.query("UPDATE counter SET n = n + 1 WHERE id = 'c'");
        });
      },
    });
    try {
      const subject = env.topology.ingressSubject("ten_x", "test");
      await publishDurable(bus, subject, JSON.stringify({ id: "m1" }), { msgId: "a" });
      // The same logical message published again under another Nats-Msg-Id (a device resend).
      await publishDurable(bus, subject, JSON.stringify({ id: "m1" }), { msgId: "b" });
      await publishDurable(bus, subject, JSON.stringify({ id: "m2" }), { msgId: "c" });
      await eventually(async () => (attempts >= 4 ? true : undefined), 15_000);
      const { rows } = await pool.query("SELECT n FROM counter WHERE id = 'c'");
      expect(rows[0].n).toBe(2);
      expect(attempts).toBe(4);
      const inbox = await pool.query("SELECT message_id FROM inbox ORDER BY message_id");
      expect(inbox.rows.map((r) => r.message_id)).toEqual(["m1", "m2"]);
    } finally {
      await consumer.stop();
    }
  });

  it("a durable declared earlier with a filter takes the whole stream when started without one", async () => {
    // As the dispatcher's and the gateway's durables were declared before they dropped their filters.
    const earlier = env.topology.ingressSubject("*", "was");
    await bus.jsm.consumers.add(env.topology.ingressStream, { durable_name: "was-filtered", ack_policy: AckPolicy.Explicit, filter_subject: earlier });
    const seen: string[] = [];
    const consumer = await startConsumer({
      bus,
      stream: env.topology.ingressStream,
      durable: "was-filtered",
      logger,
      handle: async (message) => {
        seen.push(message.subject);
      },
    });
    try {
      const info = await bus.jsm.consumers.info(env.topology.ingressStream, "was-filtered");
      expect(info.config.filter_subject).toBeUndefined();
      // nats-server 2.9 still wakes an updated durable for its earlier subjects only, so the
      // message outside them is followed by one inside (each of ours had its busiest subjects).
      const [outside, inside] = [env.topology.ingressSubject("ten_x", "other"), env.topology.ingressSubject("ten_x", "was")];
      await publishDurable(bus, outside, "{}", { msgId: "whole-1" });
      await publishDurable(bus, inside, "{}", { msgId: "whole-2" });
      // (It also takes what the stream held before: the earlier test's messages.)
      await eventually(async () => (seen.includes(inside) && seen.includes(outside) ? true : undefined), 10_000);
    } finally {
      await consumer.stop();
    }
  });

  it("processOnceBatch applies the new ids of a batch once, in one transaction, and skips repeats", async () => {
    await pool.query("CREATE TABLE batch_applied (id text PRIMARY KEY)");
    const apply = (ids: string[]) =>
      processOnceBatch(pool, "batch-test", ids, async (client, isNew) => {
        await client.query("INSERT INTO batch_applied SELECT unnest($1::text[])", [ids.filter((_, i) => isNew[i])]);
      });
    // "x" twice in one batch: the second copy is a duplicate of the first.
    expect(await apply(["x", "y", "x"])).toEqual([true, true, false]);
    expect(await apply(["y", "z"])).toEqual([false, true]);
    const { rows } = await pool.query("SELECT id FROM batch_applied ORDER BY id");
    expect(rows.map((r) => r.id)).toEqual(["x", "y", "z"]);

    // A failing batch records nothing: its ids are new again when it is retried.
    await expect(
      processOnceBatch(pool, "batch-test", ["w"], async () => {
        throw new Error("database fault");
      }),
    ).rejects.toThrow("database fault");
    expect(await apply(["w"])).toEqual([true]);
  });
});
