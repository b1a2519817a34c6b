// Two installations on one NATS server, each with its own database, configured with the same
// stream prefix: the second is refused at start with a message saying what to set, while the
// first goes on delivering every event to a real webhook receiver. Replicas of the first (its
// database) share its streams; with a prefix of its own the second starts.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDispatcherConfig } from "../services/dispatcher/config.js";
import { startDispatcher } from "../services/dispatcher/service.js";
import { loadIdentityConfig } from "../services/identity/config.js";
import { startIdentity } from "../services/identity/service.js";
import { loadOrdersConfig } from "../services/orders/config.js";
import { startOrders } from "../services/orders/service.js";
import { connectBus } from "@waybill/platform/nats.js";
import { createLogger } from "@waybill/platform/logger.js";
import { readStreamClaim, StreamsClaimedError } from "../packages/platform/stream-claims.js";
import { client, createCustomer, createStockedProduct, type Call } from "./orders-fixtures.js";
import { createTestEnvironment, type TestEnvironment } from "./support/environment.js";
import { runTs } from "./support/processes.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

let first: Stack;
let second: TestEnvironment;
let receiver: TestReceiver;
let call: Call;
let customerId: string;
let productId: string;
let firstInstallation: string;

beforeAll(async () => {
  receiver = await startReceiver();
  first = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  second = await createTestEnvironment();
  call = client(first);
  await createHook(call, { url: receiver.url, on: "order.created" });
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 0);
  firstInstallation = await installationOf(first.env.databaseUrl);
});

afterAll(async () => {
  await first?.stop();
  await second?.cleanup();
  await receiver?.close();
});

async function installationOf(databaseUrl: string): Promise<string> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return (await db.query("SELECT id FROM waybill_installation.installation")).rows[0].id;
  } finally {
    await db.end();
  }
}

let orderCount = 0;
async function createOrders(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await call("/orders", {
      json: { shortId: `INST-${++orderCount}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "1.00" }] },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    ids.push(answer.body.id);
  }
  return ids;
}

/** The second installation: its own database, the first's NATS and stream prefix. */
const secondEnv = () => ({ ...first.serviceEnv, DATABASE_URL: second.databaseUrl });

describe("two installations on one NATS server with the same stream prefix", () => {
  it("refuses the second installation's services, saying to set STREAM_PREFIX, while the first delivers every event", async () => {
    const orders = await createOrders(5);

    // In-process: each service of the second installation is refused before it creates or consumes anything.
    const refusal = startDispatcher(loadDispatcherConfig(secondEnv()));
    await expect(refusal).rejects.toBeInstanceOf(StreamsClaimedError);
    const message = await refusal.catch((error: Error) => error.message);
    expect(message).toContain(`belong to another Waybill installation,\n${firstInstallation}`);
    expect(message).toContain("Set STREAM_PREFIX to a prefix of this installation's own");
    expect(message).toContain(`STREAMS_TAKE_OVER_FROM=${firstInstallation}`);
    orders.push(...(await createOrders(5)));
    await expect(startOrders(loadOrdersConfig(secondEnv()))).rejects.toBeInstanceOf(StreamsClaimedError);
    await expect(startIdentity(loadIdentityConfig(secondEnv()), { announce: () => {} })).rejects.toBeInstanceOf(StreamsClaimedError);

    // As its own process, as in production: exit 1 with the message alone (no stack).
    const refused = runTs("services/dispatcher/main.ts", { ...secondEnv(), OPS_PORT: "0", GRPC_PORT: "0", LOG_LEVEL: "warn" });
    orders.push(...(await createOrders(5)));
    expect(await refused.exited(60_000)).toBe(1);
    const output = refused.output();
    expect(output).toContain("dispatcher: failed to start: the NATS streams of stream prefix");
    expect(output).toContain("Set STREAM_PREFIX");
    expect(output).not.toMatch(/\n\s+at /);

    // The second database has an installation of its own; the claim still names the first.
    const secondInstallation = await installationOf(second.databaseUrl);
    expect(secondInstallation).not.toBe(firstInstallation);
    const bus = await connectBus({ url: first.env.natsUrl, name: "claim-reader", topology: first.env.topology, logger: createLogger("test", "silent") });
    try {
      expect((await readStreamClaim(bus, first.env.streamPrefix))?.installationId).toBe(firstInstallation);
    } finally {
      await bus.close();
    }

    orders.push(...(await createOrders(5)));
    // Every order.created of the first installation reached its receiver, once.
    const received = await receiver.waitFor(orders.length, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const delivered = receiver.received.map((r) => r.json.orderId as string);
    expect(new Set(delivered)).toEqual(new Set(orders));
    expect(received.length).toBe(orders.length);
  });

  it("lets a replica of the first installation (its database) share the streams", async () => {
    const replica = await startDispatcher(loadDispatcherConfig(first.serviceEnv));
    await replica.stop();
  });

  it("hands the streams over only when told the owner's id (STREAMS_TAKE_OVER_FROM), and then refuses the former owner", async () => {
    const third = await createTestEnvironment();
    try {
      // A prefix of their own, so the first installation keeps delivering on its streams.
      const prefix = third.streamPrefix;
      const owner = { ...secondEnv(), STREAM_PREFIX: prefix };
      const owned = await startIdentity(loadIdentityConfig(owner), { announce: () => {} });
      await owned.stop();
      const replacement = { ...first.serviceEnv, DATABASE_URL: third.databaseUrl, STREAM_PREFIX: prefix };
      await expect(
        startIdentity(loadIdentityConfig({ ...replacement, STREAMS_TAKE_OVER_FROM: "inst_someoneelse" }), { announce: () => {} }),
      ).rejects.toBeInstanceOf(StreamsClaimedError);
      const taken = await startIdentity(loadIdentityConfig({ ...replacement, STREAMS_TAKE_OVER_FROM: await installationOf(second.databaseUrl) }), {
        announce: () => {},
      });
      await taken.stop();
      await expect(startIdentity(loadIdentityConfig(owner), { announce: () => {} })).rejects.toThrow(`${await installationOf(third.databaseUrl)} (claimed`);
    } finally {
      await third.cleanup();
    }
  });

  it("starts the second installation with a stream prefix of its own", async () => {
    const identity = await startIdentity(loadIdentityConfig({ ...secondEnv(), STREAM_PREFIX: second.streamPrefix }), { announce: () => {} });
    await identity.stop();
  });
});
