// An event that reaches the dispatcher again looking new. After nats-server is killed with -9 it
// restores its consumers' last flushed state, so events the dispatcher had already recorded come
// again with a delivery count of 1, as if never seen. If their deliveries had been cut short, they
// must still reach their hooks; if they were delivered, they must not be delivered twice.
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DISPATCHER_SCHEMA } from "../services/dispatcher/service.js";
import { createPool } from "@waybill/platform/db.js";
import { newId } from "@waybill/platform/ids.js";
import { headers, TENANT_ID_NATS_HEADER, TRANSACTION_ID_NATS_HEADER } from "@waybill/platform/nats.js";
import { client, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createGate, createHook, LOOPBACK_RECEIVERS, sleep, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

let stack: Stack;
let call: Call;
let receiver: TestReceiver;
let tenantId: string;
/** Customers whose first delivery's answer the receiver holds until the gate opens. */
const held = new Map<string, ReturnType<typeof createGate>>();

beforeAll(async () => {
  stack = await startStack({ extraEnv: LOOPBACK_RECEIVERS });
  call = client(stack);
  receiver = await startReceiver(async (_, request) => {
    const gate = held.get(request.json?.customerId);
    if (gate) {
      held.delete(request.json.customerId);
      await gate.passed;
    }
    return { status: 200, body: "ok" };
  });
  const hook = await createHook(call, { url: receiver.url, on: "customer.created" });
  tenantId = await withDispatcherDb(
    async (db) => (await db.query<{ tenant_id: string }>("SELECT tenant_id FROM hooks WHERE id = $1", [hook.id])).rows[0].tenant_id,
  );
});
afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

async function withDispatcherDb<T>(fn: (db: ReturnType<typeof createPool>) => Promise<T>): Promise<T> {
  const pool = createPool({ databaseUrl: stack.env.databaseUrl, schema: DISPATCHER_SCHEMA, max: 1, applicationName: "waybill-test" });
  try {
    return await fn(pool);
  } finally {
    await pool.end();
  }
}

function customerCreated() {
  return {
    id: newId("evt"),
    kind: "customer.created",
    time: new Date().toISOString(),
    transactionId: newId("txn"),
    customerId: newId("cus"),
    name: "Again",
    email: null,
    phone: null,
    address: null,
  };
}

/** Publishes onto EVENTS as the outbox relay does; `msgId` other than the event id gets past JetStream's deduplication. */
async function publish(event: ReturnType<typeof customerCreated>, msgId = event.id): Promise<void> {
  const nc = await connect({ servers: stack.env.natsUrl });
  try {
    const h = headers();
    h.set(TENANT_ID_NATS_HEADER, tenantId);
    h.set(TRANSACTION_ID_NATS_HEADER, event.transactionId);
    await jetstream(nc).publish(stack.env.topology.eventSubject(tenantId, event.kind), JSON.stringify(event), { msgID: msgId, headers: h });
  } finally {
    await nc.close();
  }
}

const receivedFor = (customerId: string) => receiver.received.filter((r) => r.json?.customerId === customerId);
const arrival = (customerId: string) => eventually(async () => (receivedFor(customerId).length > 0 ? true : undefined), 10_000);

describe("an event the dispatcher recorded before, arriving as if new", () => {
  it("still reaches the hook when its delivery never happened", async () => {
    const event = customerCreated();
    // Recorded in the event log by an earlier take whose deliveries a crash cut short.
    await withDispatcherDb((db) =>
      db.query("INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, event) VALUES ($1, $2, $3, $4, $5, $6)", [
        event.id,
        tenantId,
        event.kind,
        event.time,
        event.transactionId,
        JSON.stringify(event),
      ]),
    );
    await publish(event);
    await arrival(event.customerId);
    expect(receivedFor(event.customerId).map((r) => r.json.id)).toEqual([event.id]);
  });

  it("is not delivered a second time when its delivery succeeded", async () => {
    const event = customerCreated();
    await publish(event);
    await arrival(event.customerId);
    await publish(event, `${event.id}-again`);
    // A later event on the same hook arrives after the copy has been taken and settled.
    const later = customerCreated();
    await publish(later);
    await arrival(later.customerId);
    await sleep(200);
    expect(receivedFor(event.customerId)).toHaveLength(1);
  });

  it("is not delivered a second time when it comes again while its first delivery awaits the answer", async () => {
    const event = customerCreated();
    const gate = createGate();
    held.set(event.customerId, gate);
    await publish(event);
    await arrival(event.customerId);
    // The copy is taken while the receiver holds its answer: nothing is recorded of the delivery yet.
    await publish(event, `${event.id}-again`);
    await sleep(500);
    gate.open();
    const later = customerCreated();
    await publish(later);
    await arrival(later.customerId);
    await sleep(200);
    expect(receivedFor(event.customerId)).toHaveLength(1);
  });
});
