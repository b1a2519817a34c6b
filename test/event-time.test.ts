// An event's time is never earlier than the change it announces: orders, updates and customers
// created many at once (so that they wait for their batch), and a device's readings sent right
// after its CONNACK, which come after its device.connected in time and in the stream.
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allEvents, client, createCustomer, createStockedProduct, eventsUntil, type Call } from "./orders-fixtures.js";
import { startStack, type Stack } from "./support/stack.js";

let stack: Stack;
let call: Call;

beforeAll(async () => {
  stack = await startStack();
  call = client(stack);
});

afterAll(async () => {
  await stack?.stop();
});

const ORDERS_AT_ONCE = 24;

describe("event time", () => {
  it("order.created and order.updated are not earlier than the order's createdAt and updatedAt", async () => {
    const customerId = await createCustomer(call);
    const productId = await createStockedProduct(call, 0);
    const answers = await Promise.all(
      Array.from({ length: ORDERS_AT_ONCE }, (_, i) =>
        call("/orders", { json: { shortId: `T-${Date.now()}-${i}`, customerId, currency: "EUR", orderItems: [{ productId, quantity: 1, price: "2.50" }] } }),
      ),
    );
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const orders = new Map(answers.map((a) => [a.body.id as string, a.body]));
    const updated = await call(`/orders/${answers[0].body.id}`, { method: "PUT", json: { dueDate: "2031-01-01T00:00:00Z" } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);

    const events = await eventsUntil(stack, (e) => orders.has(e.orderId), ["order.created", "order.updated"]);
    await expect.poll(async () => (await allEvents(stack)).filter((e) => e.kind === "order.created" && orders.has(e.orderId)).length).toBe(ORDERS_AT_ONCE);
    const created = (await allEvents(stack)).filter((e) => e.kind === "order.created" && orders.has(e.orderId));
    for (const event of created)
      expect(event.time >= orders.get(event.orderId).createdAt, `${event.time} vs ${orders.get(event.orderId).createdAt}`).toBe(true);
    const update = events.find((e) => e.kind === "order.updated");
    expect(update.time >= updated.body.updatedAt, `${update.time} vs ${updated.body.updatedAt}`).toBe(true);
    // The same ISO 8601 form as every other timestamp of the API.
    expect(update.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("customer.created is not earlier than the customer's createdAt", async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => call("/customers", { json: { name: `At once ${i}` } })));
    const customers = new Map(answers.map((a) => [a.body.id as string, a.body]));
    const events = await eventsUntil(stack, (e) => e.kind === "customer.created" && customers.has(e.customerId), ["customer.created"]);
    for (const event of events) expect(event.time >= customers.get(event.customerId).createdAt).toBe(true);
  });

  it("a reading sent right after CONNACK comes after its session's device.connected", async () => {
    const sensor = await call("/tokens", { json: { name: "sensor", type: "sensor" } });
    expect(sensor.status).toBe(201);
    for (let round = 0; round < 3; round++) {
      const deviceId = `clock-${round}`;
      const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${stack.gateway.port}`, {
        username: deviceId,
        password: sensor.body.token,
        reconnectPeriod: 0,
        protocolVersion: 4,
      });
      await device.publishAsync(`devices/${deviceId}/telemetry`, JSON.stringify({ round }), { qos: 1 });
      await device.endAsync();
      const events = await eventsUntil(stack, (e) => e.deviceId === deviceId, ["device.connected", "device.reading"]);
      const connected = events.find((e) => e.kind === "device.connected");
      const reading = events.find((e) => e.kind === "device.reading");
      expect(events.indexOf(connected), "device.connected is first in the stream").toBeLessThan(events.indexOf(reading));
      expect(connected.time <= reading.time, `${connected.time} vs ${reading.time}`).toBe(true);
      expect(connected.time <= reading.receivedAt).toBe(true);
    }
  });
});
