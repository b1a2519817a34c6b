// The transactional outbox: an order's event survives a relay that is down at commit time, and a
// relay that dies after publishing but before marking does not produce a second event.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import { createLogger } from "@waybill/platform/logger.js";
import { connectBus } from "@waybill/platform/nats.js";
import { appendEvents } from "@waybill/contracts/events/outbox-events.js";
import { createOutboxRelay, type OutboxRelay, type OutboxRelayOptions } from "@waybill/platform/outbox.js";
import { withTransaction } from "@waybill/platform/transactions.js";
import { readStream } from "./support/bus.js";
import { eventually, request } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let db: pg.Client;
let customerId: string;
let productId: string;
beforeAll(async () => {
  stack = await startStack({ orders: { startRelay: false } });
  // Orders name an existing customer of their tenant.
  customerId = (await request(`${stack.baseUrl}/customers`, { token: stack.token, json: { name: "Outbox Customer" } })).body.id;
  productId = (
    await request(`${stack.baseUrl}/products`, {
      token: stack.token,
      json: { sku: `SKU-${Math.random().toString(36).slice(2, 10)}`, name: "Widget", price: "1.00", currency: "EUR" },
    })
  ).body.id;
  db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const order = (shortId: string) => ({
  shortId,
  customerId,
  currency: "USD",
  orderItems: [{ productId, quantity: 2, price: "5.25" }],
});

async function eventsFor(orderId: string) {
  const all = await readStream(stack.env.natsUrl, stack.env.topology.eventsStream);
  return all.filter((m) => m.json.orderId === orderId);
}

/** A pool and a bus of the test's own over the orders schema, and relays over them; all closed at the end. */
async function withRelays(fn: (deps: { pool: Pool; relay(options?: Partial<OutboxRelayOptions>): OutboxRelay }) => Promise<void>): Promise<void> {
  const logger = createLogger("test-relay", "silent");
  const pool = createPool({ databaseUrl: stack.env.databaseUrl, schema: "orders", applicationName: "outbox-test" });
  const bus = await connectBus({ url: stack.env.natsUrl, name: "outbox-test", topology: stack.env.topology, logger });
  const relays: OutboxRelay[] = [];
  const relay = (options: Partial<OutboxRelayOptions> = {}) => {
    const created = createOutboxRelay({ pool, bus, schema: "orders", logger, ...options });
    relays.push(created);
    return created;
  };
  try {
    await fn({ pool, relay });
  } finally {
    for (const created of relays) await created.stop();
    await bus.close();
    await pool.end();
  }
}

/** Commits one webhook.test event naming `hookId` through the outbox, in a transaction of `pool`. */
function commitTestEvent(pool: Pool, hookId: string): Promise<unknown> {
  return withTransaction(pool, (client) =>
    appendEvents(client, stack.env.topology, [{ tenantId: "ten_relaytest", kind: "webhook.test", payload: { hookId } }]),
  );
}

describe("outbox relay", () => {
  it("publishes an order committed while the relay was stopped exactly once when it starts", async () => {
    const created = await request(`${stack.baseUrl}/orders`, { token: stack.token, json: order("OUTBOX-1") });
    expect(created.status).toBe(201);
    const orderId = created.body.id;

    const { rows } = await db.query("SELECT id FROM orders.outbox WHERE event->>'orderId' = $1", [orderId]);
    expect(rows).toHaveLength(1);
    expect(await eventsFor(orderId)).toHaveLength(0);

    await stack.orders.relay.start();
    const published = await eventually(async () => {
      const events = await eventsFor(orderId);
      return events.length > 0 ? events : undefined;
    });
    // Stop and start again: nothing left to publish, so nothing is published twice.
    await stack.orders.relay.stop();
    await stack.orders.relay.start();
    await new Promise((r) => setTimeout(r, 300));
    await stack.orders.relay.stop();

    const events = await eventsFor(orderId);
    expect(events).toHaveLength(1);
    expect(published[0].json.id).toBe(rows[0].id);
    expect(events[0].json).toMatchObject({ id: rows[0].id, kind: "order.created", orderId });
    // Published rows leave the outbox: it holds only what is still to be sent.
    const after = await db.query("SELECT id FROM orders.outbox WHERE id = $1", [rows[0].id]);
    expect(after.rows).toHaveLength(0);
  });

  it("does not publish a second event when the relay dies between publish and delete", async () => {
    const created = await request(`${stack.baseUrl}/orders`, { token: stack.token, json: order("OUTBOX-2") });
    expect(created.status).toBe(201);
    const orderId = created.body.id;

    await withRelays(async ({ relay }) => {
      const crashing = relay({
        afterPublish: async () => {
          throw new Error("simulated crash after publish");
        },
      });
      await expect(crashing.drainOnce()).rejects.toThrow("simulated crash");
      expect(await eventsFor(orderId)).toHaveLength(1);
      const pending = await db.query("SELECT id FROM orders.outbox WHERE event->>'orderId' = $1", [orderId]);
      expect(pending.rows).toHaveLength(1);

      expect(await relay().drainOnce()).toBe(1);
      const events = await eventsFor(orderId);
      expect(events).toHaveLength(1);
      expect(events[0].json.id).toBe(pending.rows[0].id);
      const remaining = await db.query("SELECT count(*)::int AS n FROM orders.outbox");
      expect(remaining.rows[0].n).toBe(0);
    });
  });

  it("publishes a commit made while it was publishing at once, not a poll interval later", async () => {
    const first = newId("hook");
    const second = newId("hook");
    await withRelays(async ({ pool, relay }) => {
      // Written on the pool, outside a transaction: committed as the statement returns.
      const append = async (hookId: string) => {
        await appendEvents(pool, stack.env.topology, [{ tenantId: "ten_relaytest", kind: "webhook.test", payload: { hookId } }]);
      };
      // The second event commits while the relay publishes the first; polling alone would find
      // it only after a minute.
      let injected = false;
      await relay({
        pollIntervalMs: 60_000,
        afterPublish: async () => {
          if (injected) return;
          injected = true;
          await append(second);
        },
      }).start();
      await append(first);
      const hooksSeen = async () => (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).map((m) => m.json.hookId);
      const seen = await eventually(async () => {
        const ids = await hooksSeen();
        return ids.includes(first) && ids.includes(second) ? ids : undefined;
      }, 5_000);
      expect(seen.filter((id) => id === first || id === second)).toEqual([first, second]);
    });
  });

  it("publishes a row a plain writer committed long before the poll would, with no call to wake the relay", async () => {
    const inTransaction = newId("hook");
    const onPool = newId("hook");
    const rolledBack = newId("hook");
    await withRelays(async ({ pool, relay }) => {
      await relay({ pollIntervalMs: 60_000 }).start();
      // Let the start's read of the table pass, so that only the commits can wake the relay.
      await new Promise((r) => setTimeout(r, 200));
      const arrived = async (hookId: string) => {
        const startedAt = Date.now();
        await eventually(async () => {
          const ids = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).map((m) => m.json.hookId);
          return ids.includes(hookId) ? true : undefined;
        }, 5_000);
        return Date.now() - startedAt;
      };
      // What services do: events written in a transaction and nothing else.
      await commitTestEvent(pool, inTransaction);
      expect(await arrived(inTransaction)).toBeLessThan(2_000);
      // A statement on the pool commits alone.
      await appendEvents(pool, stack.env.topology, [{ tenantId: "ten_relaytest", kind: "webhook.test", payload: { hookId: onPool } }]);
      expect(await arrived(onPool)).toBeLessThan(2_000);
      // A transaction that rolls back hands nothing to the relay, and its row is gone.
      await expect(
        withTransaction(pool, async (client) => {
          await appendEvents(client, stack.env.topology, [{ tenantId: "ten_relaytest", kind: "webhook.test", payload: { hookId: rolledBack } }]);
          throw new Error("changed my mind");
        }),
      ).rejects.toThrow("changed my mind");
      await new Promise((r) => setTimeout(r, 300));
      const ids = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).map((m) => m.json.hookId);
      expect(ids).not.toContain(rolledBack);
      const { rows } = await db.query("SELECT count(*)::int AS n FROM orders.outbox WHERE event->>'hookId' = $1", [rolledBack]);
      expect(rows[0].n).toBe(0);
    });
  });

  it("refuses outbox rows on a connection outside withTransaction, whose commit nothing would see", async () => {
    await withRelays(async ({ pool }) => {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await expect(
          appendEvents(client, stack.env.topology, [{ tenantId: "ten_relaytest", kind: "webhook.test", payload: { hookId: newId("hook") } }]),
        ).rejects.toThrow("withTransaction");
      } finally {
        await client.query("ROLLBACK");
        client.release();
      }
    });
  });

  it("publishes rows committed in this process at once, each once and in commit order, and deletes them", async () => {
    const hookIds = [newId("hook"), newId("hook"), newId("hook")];
    await withRelays(async ({ pool, relay }) => {
      await relay({ pollIntervalMs: 60_000 }).start();
      // Let the start's read of the table pass, so that only the commits' hand-over can publish.
      await new Promise((r) => setTimeout(r, 200));
      for (const hookId of hookIds) await commitTestEvent(pool, hookId);
      const seen = await eventually(async () => {
        const ids = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).map((m) => m.json.hookId);
        return hookIds.every((id) => ids.includes(id)) ? ids : undefined;
      }, 5_000);
      // Each once, in commit order.
      expect(seen.filter((id) => hookIds.includes(id))).toEqual(hookIds);
      await eventually(async () => {
        const { rows } = await db.query("SELECT count(*)::int AS n FROM orders.outbox WHERE event->>'hookId' = ANY($1)", [hookIds]);
        return rows[0].n === 0 ? true : undefined;
      }, 5_000);
    });
  });

  it("leaves a row whose publish from memory failed in the table, and publishes it from there once", async () => {
    const hookId = newId("hook");
    let failures = 0;
    await withRelays(async ({ pool, relay }) => {
      await relay({
        pollIntervalMs: 60_000,
        // The first batch "crashes" after its publish: its row must stay for the table read.
        afterPublish: async () => {
          if (failures++ === 0) throw new Error("simulated failure after publish");
        },
      }).start();
      await new Promise((r) => setTimeout(r, 200));
      await commitTestEvent(pool, hookId);
      // The failure makes the relay read the table (not wait for its minute-long poll).
      await eventually(async () => {
        const { rows } = await db.query("SELECT count(*)::int AS n FROM orders.outbox WHERE event->>'hookId' = $1", [hookId]);
        return rows[0].n === 0 && failures >= 2 ? true : undefined;
      }, 5_000);
      const published = (await readStream(stack.env.natsUrl, stack.env.topology.eventsStream)).filter((m) => m.json.hookId === hookId);
      expect(published).toHaveLength(1);
    });
  });
});
