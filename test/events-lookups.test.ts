// Reading one event and finding related ones, against a running system: GET /v1/events/{id},
// the transactionId / entityId / deviceId filters of GET /v1/events (and the indexes behind them),
// and GET /v1/events/{id}/deliveries. Another tenant's events are 404s and never in its lists.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsQuery } from "../services/dispatcher/event-log.js";
import { newId } from "@waybill/platform/ids.js";
import { client, createCustomer, createOrder, createStockedProduct, otherTenant, setOrderStatus, type Call } from "./orders-fixtures.js";
import { eventually, expectProblem } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { createHook, LOOPBACK_RECEIVERS, startReceiver, type TestReceiver } from "./webhooks-fixtures.js";

type Event = { id: string; kind: string; transactionId: string; [field: string]: unknown };

let stack: Stack;
let call: Call;
let other: Call;
let customerId: string;
let productId: string;
let order: { id: string };
/** Every event of this tenant's log once the order is ready, newest first. */
let log: Event[];
let ok: TestReceiver;
let failing: TestReceiver;

beforeAll(async () => {
  stack = await startStack({ extraEnv: { ...LOOPBACK_RECEIVERS, WEBHOOK_RETRY_SCHEDULE: "50ms,50ms" } });
  call = client(stack);
  other = client(stack, (await otherTenant(stack)).token);
  ok = await startReceiver();
  failing = await startReceiver(() => ({ status: 500, body: "down" }));
  await createHook(call, { url: ok.url, on: "order.created" });
  await createHook(call, { url: failing.url, on: "order.created" });
  customerId = await createCustomer(call);
  productId = await createStockedProduct(call, 10);
  order = await createOrder(call, customerId, [{ productId, quantity: 2 }]);
  expect((await setOrderStatus(call, order.id, "ready")).status).toBe(200);
  // Each service relays its own events: wait until every one of them is in the log.
  const expected = ["customer.created", "product.created", "inventory.adjusted", "order.created", "order.status.changed", "inventory.reserved"];
  log = await eventually(async () => {
    const answer = await call("/events?limit=100");
    return expected.every((kind) => answer.body.data.some((e: Event) => e.kind === kind)) ? answer.body.data : undefined;
  });
});

afterAll(async () => {
  await ok?.close();
  await failing?.close();
  await stack?.stop();
});

const ids = (events: Event[]) => events.map((e) => e.id);
const named = (id: string) => (e: Event) => Object.values(e).includes(id);

describe("GET /v1/events/{id}", () => {
  it("answers the event exactly as the list shows it", async () => {
    for (const event of log) {
      const answer = await call(`/events/${event.id}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(event);
    }
  });

  it("is a 404 event_not_found for an unknown id, a malformed one, or another tenant's event", async () => {
    expectProblem(await call(`/events/${newId("evt")}`), 404, "event_not_found");
    expectProblem(await call("/events/not-an-event"), 404, "event_not_found");
    expectProblem(await call(`/events/${order.id}`), 404, "event_not_found");
    expectProblem(await other(`/events/${log[0].id}`), 404, "event_not_found");
  });

  it("leaves /v1/events/stream to the stream", async () => {
    const controller = new AbortController();
    const answer = await fetch(`${stack.baseUrl}/events/stream`, { headers: { authorization: `Bearer ${stack.token}` }, signal: controller.signal });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
    controller.abort();
  });
});

describe("GET /v1/events?transactionId=", () => {
  it("answers every event of that transaction, newest first, and pages through them", async () => {
    const reserved = log.find((e) => e.kind === "inventory.reserved" && e.orderId === order.id)!;
    const expected = log.filter((e) => e.transactionId === reserved.transactionId);
    // Moving the order to ready is one operation: its status change and the reservation.
    expect(expected.map((e) => e.kind).sort()).toEqual(["inventory.reserved", "order.status.changed"]);
    const answer = await call(`/events?transactionId=${reserved.transactionId}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: expected, nextCursor: null });

    const first = await call(`/events?transactionId=${reserved.transactionId}&limit=1`);
    expect(ids(first.body.data)).toEqual([expected[0].id]);
    const second = await call(`/events?transactionId=${reserved.transactionId}&limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ data: [expected[1]], nextCursor: null });
    expect((await call(`/events?transactionId=${reserved.transactionId}&kind=inventory.reserved`)).body.data).toEqual([reserved]);
  });

  it("finds a transaction the client named with X-Transaction-Id", async () => {
    const transactionId = `txn_${Date.now()}ClientNamed`;
    const answer = await call("/customers", { json: { name: "Named transaction" }, headers: { "X-Transaction-Id": transactionId } });
    expect(answer.status).toBe(201);
    const events = await eventually(async () => {
      const page = await call(`/events?transactionId=${transactionId}`);
      return page.body.data.length > 0 ? page.body.data : undefined;
    });
    expect(events.map((e: Event) => [e.kind, e.customerId])).toEqual([["customer.created", answer.body.id]]);
  });

  it("never shows another tenant's events, and refuses a malformed id", async () => {
    expect((await other(`/events?transactionId=${log[0].transactionId}`)).body).toEqual({ data: [], nextCursor: null });
    for (const bad of ["txn_", "txn_short", "ord_01jc0000000000000000000000", "txn_with-dash0000"]) {
      expectProblem(await call(`/events?transactionId=${bad}`), 400, "invalid_query");
    }
  });
});

describe("GET /v1/events?entityId= and ?deviceId=", () => {
  it("answers the events that name an order, a product or a customer, newest first", async () => {
    for (const id of [order.id, productId, customerId]) {
      const answer = await call(`/events?entityId=${id}&limit=100`);
      expect(answer.status).toBe(200);
      expect(ids(answer.body.data), id).toEqual(ids(log.filter(named(id))));
    }
    const kinds = async (id: string) => (await call(`/events?entityId=${id}`)).body.data.map((e: Event) => e.kind);
    expect(await kinds(order.id)).toEqual(expect.arrayContaining(["order.created", "order.status.changed", "inventory.reserved"]));
    expect(await kinds(productId)).toEqual(expect.arrayContaining(["product.created", "inventory.adjusted", "inventory.reserved"]));
    expect(await kinds(customerId)).toEqual(expect.arrayContaining(["customer.created", "order.created"]));
    expect((await call(`/events?entityId=${order.id}&kind=order.created`)).body.data.map((e: Event) => e.orderId)).toEqual([order.id]);
  });

  it("answers a shipment's events", async () => {
    const shipment = await call(`/orders/${order.id}/shipments`, { json: { carrier: "DHL", trackingNumber: `T-${Date.now()}` } });
    expect(shipment.status).toBe(201);
    const events = await eventually(async () => {
      const page = await call(`/events?entityId=${shipment.body.id}`);
      return page.body.data.length > 0 ? page.body.data : undefined;
    });
    expect(events.map((e: Event) => [e.kind, e.orderId])).toEqual([["shipment.created", order.id]]);
  });

  it("answers a device's events by the id it connects with", async () => {
    const deviceId = `dock-${Date.now()}`;
    const sent = await call(`/devices/${deviceId}/readings`, { json: { channel: "telemetry", payload: { temperature: 4.5 } } });
    expect(sent.status).toBe(202);
    const events = await eventually(async () => {
      const page = await call(`/events?deviceId=${deviceId}`);
      return page.body.data.length > 0 ? page.body.data : undefined;
    });
    expect(events.map((e: Event) => [e.kind, e.deviceId])).toEqual([["device.reading", deviceId]]);
    expect((await other(`/events?deviceId=${deviceId}`)).body.data).toEqual([]);
  });

  it("never shows another tenant's events, and refuses ids that name no entity", async () => {
    expect((await other(`/events?entityId=${order.id}`)).body).toEqual({ data: [], nextCursor: null });
    for (const bad of [log[0].id, "ord_123", "order-1", newId("txn")]) {
      expectProblem(await call(`/events?entityId=${bad}`), 400, "invalid_query");
    }
    expectProblem(await call("/events?deviceId=has%20space"), 400, "invalid_query");
  });
});

describe("GET /v1/events/{id}/deliveries", () => {
  it("answers every attempt of the event to every hook, newest first, page by page", async () => {
    const created = log.find((e) => e.kind === "order.created" && e.orderId === order.id)!;
    // One success, and three attempts at the failing hook (the first and two retries).
    const deliveries = await eventually(async () => {
      const page = await call(`/events/${created.id}/deliveries`);
      return page.body.data.length === 4 ? page.body : undefined;
    });
    expect(deliveries.nextCursor).toBeNull();
    expect(deliveries.data.map((x: { eventId: string }) => x.eventId)).toEqual(Array(4).fill(created.id));
    expect(ids(deliveries.data)).toEqual([...ids(deliveries.data)].sort().reverse());
    const byUrl = (url: string) => deliveries.data.filter((x: { url: string }) => x.url === url);
    expect(byUrl(ok.url).map((x: { outcome: string }) => x.outcome)).toEqual(["succeeded"]);
    expect(byUrl(failing.url).map((x: { attempt: number; statusCode: number }) => [x.attempt, x.statusCode])).toEqual([
      [3, 500],
      [2, 500],
      [1, 500],
    ]);

    // The same records as each hook's executions.
    const hookIds = [...new Set(deliveries.data.map((x: { hookId: string }) => x.hookId))];
    const executions = (await Promise.all(hookIds.map(async (hookId) => (await call(`/hooks/${hookId}/executions?limit=100`)).body.data))).flat();
    for (const delivery of deliveries.data) expect(executions).toContainEqual(delivery);

    const pages: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(`/events/${created.id}/deliveries?limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      pages.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(pages).toEqual(deliveries.data);
  });

  it("is an empty list for an event no hook was subscribed to", async () => {
    const adjusted = log.find((e) => e.kind === "inventory.adjusted")!;
    expect((await call(`/events/${adjusted.id}/deliveries`)).body).toEqual({ data: [], nextCursor: null });
  });

  it("is a 404 event_not_found for an unknown event or another tenant's", async () => {
    expectProblem(await call(`/events/${newId("evt")}/deliveries`), 404, "event_not_found");
    expectProblem(await call("/events/nope/deliveries"), 404, "event_not_found");
    const created = log.find((e) => e.kind === "order.created")!;
    expectProblem(await other(`/events/${created.id}/deliveries`), 404, "event_not_found");
  });
});

describe("the filters' indexes", () => {
  it("are the ones PostgreSQL reads a page of a filter from, among many events", async () => {
    const db = new pg.Client({ connectionString: stack.env.databaseUrl, options: "-c search_path=dispatcher" });
    await db.connect();
    try {
      const tenantId = newId("ten");
      // 20,000 events of one tenant about 2,000 orders in 10,000 transactions.
      await db.query(
        `INSERT INTO event_log (id, tenant_id, kind, time, transaction_id, event)
         SELECT 'evt_' || lpad(g::text, 26, '0'), $1, 'order.updated', now(), 'txn_' || lpad((g / 2)::text, 26, '0'),
                jsonb_build_object('orderId', 'ord_' || lpad((g % 2000)::text, 26, '0'), 'customerId', 'cus_' || lpad((g % 50)::text, 26, '0'))
           FROM generate_series(1, 20000) g`,
        [tenantId],
      );
      await db.query("ANALYZE event_log");
      const plan = async (filter: Record<string, string>) => {
        const query = eventsQuery(tenantId, { limit: 20, ...filter });
        const { rows } = await db.query(`EXPLAIN ${query.text}`, query.values);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      };
      expect(await plan({ transactionId: `txn_${"7".padStart(26, "0")}` })).toMatch(/Index Scan using event_log_transaction/);
      expect(await plan({ entityId: `ord_${"7".padStart(26, "0")}` })).toMatch(/Index Scan using event_log_order/);
      expect(await plan({ entityId: `cus_${"7".padStart(26, "0")}` })).toMatch(/Index Scan using event_log_customer/);
      await db.query("DELETE FROM event_log WHERE tenant_id = $1", [tenantId]);
    } finally {
      await db.end();
    }
  });
});
