// Two tenants on one system: every resource of one is a 404 to the other for read, update,
// delete and actions; lists (users and the event log too) never leak; hooks never receive the
// other tenant's events.
import http from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@waybill/platform/ids.js";
import { client, createCustomer, createOrder, createStockedProduct, setOrderStatus, type Call } from "./orders-fixtures.js";
import { eventually } from "./support/http.js";
import { startStack, type Stack } from "./support/stack.js";
import { issueToken } from "./support/tokens.js";

let stack: Stack;
let a: Call;
let b: Call;
let receiver: http.Server;
let receiverUrl: string;
const received: { path: string; body: { orderId?: string } }[] = [];
const ids: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStack({ extraEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" } });
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ path: req.url ?? "", body: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

  const db = new pg.Client({ connectionString: stack.env.databaseUrl });
  await db.connect();
  const tenantB = newId("ten");
  await db.query("INSERT INTO identity.tenants (id, name) VALUES ($1, 'tenant-b')", [tenantB]);
  await db.end();
  a = client(stack);
  b = client(stack, (await issueToken(stack.env.databaseUrl, "api", { tenantId: tenantB })).token);

  // Tenant A owns one of everything.
  ids.customer = await createCustomer(a);
  ids.product = await createStockedProduct(a, 10);
  const order = await createOrder(a, ids.customer, [{ productId: ids.product, quantity: 1 }]);
  ids.order = order.id;
  expect((await setOrderStatus(a, ids.order, "ready")).status).toBe(200);
  const shipment = await a(`/orders/${ids.order}/shipments`, { json: { carrier: "DHL", trackingNumber: "ISO-TRK-1" } });
  expect(shipment.status).toBe(201);
  ids.shipment = shipment.body.id;
  const hook = await a("/hooks", { json: { name: "A's hook", url: `${receiverUrl}/a`, on: "order.created" } });
  expect(hook.status).toBe(201);
  ids.hook = hook.body.id;
  const test = await a(`/hooks/${ids.hook}/test`, { method: "POST" });
  expect(test.status).toBe(200);
  ids.execution = test.body.id;
  ids.token = (await a("/tokens", { json: { name: "A's token", type: "cli" } })).body.id;
  const users = await a("/users");
  expect(users.status).toBe(200);
  ids.user = users.body.data[0].id;
});

afterAll(async () => {
  await new Promise<void>((r) => receiver.close(() => r()));
  await stack?.stop();
});

describe("tenant isolation", () => {
  it("every resource of tenant A is a 404 to tenant B (a 422 when named in a body): read, update, delete and actions", async () => {
    const attempts: [string, string, unknown?][] = [
      ["GET", `/orders/${ids.order}`],
      ["PUT", `/orders/${ids.order}`, { dueDate: "2030-01-01" }],
      ["POST", `/orders/${ids.order}/status`, { status: "cancelled" }],
      ["POST", `/orders/${ids.order}/shipments`, { carrier: "UPS", trackingNumber: "B-STEAL" }],
      ["GET", `/shipments/${ids.shipment}`],
      ["POST", `/shipments/${ids.shipment}/status`, { status: "inTransit" }],
      ["POST", `/shipments/${ids.shipment}/delivery`, {}],
      ["GET", `/products/${ids.product}`],
      ["PUT", `/products/${ids.product}`, { name: "stolen" }],
      ["DELETE", `/products/${ids.product}`],
      ["GET", `/customers/${ids.customer}`],
      ["PUT", `/customers/${ids.customer}`, { name: "stolen" }],
      ["GET", `/hooks/${ids.hook}`],
      ["PUT", `/hooks/${ids.hook}`, { status: "paused" }],
      ["POST", `/hooks/${ids.hook}/rotate`],
      ["POST", `/hooks/${ids.hook}/test`],
      ["GET", `/hooks/${ids.hook}/executions`],
      ["POST", `/hooks/${ids.hook}/executions/${ids.execution}/retry`],
      ["DELETE", `/hooks/${ids.hook}`],
      ["DELETE", `/tokens/${ids.token}`],
    ];
    for (const [method, path, json] of attempts) {
      const answer = await b(path, { method, ...(json === undefined ? {} : { json }) });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(404);
    }
    // A product named in a body is a field of that request: another tenant's is unknown (422), as a missing one.
    const adjusted = await b("/inventory/adjustments", { json: { productId: ids.product, delta: -5, reason: "theft" } });
    expect(adjusted.status, JSON.stringify(adjusted.body)).toBe(422);
    expect(adjusted.body.code).toBe("unknown_product");
    // Nothing of A changed.
    expect((await a(`/orders/${ids.order}`)).body.status).toBe("inProgress");
    expect((await a(`/products/${ids.product}`)).body.name).toBe("Widget");
    expect((await a(`/hooks/${ids.hook}`)).body.status).toBe("active");
    const stock = (await a(`/inventory?productId=${ids.product}`)).body.data[0];
    expect(stock).toMatchObject({ onHand: 10, reserved: 1 });
    expect((await a("/tokens?limit=100")).body.data.find((t: { id: string }) => t.id === ids.token).revokedAt).toBeNull();
  });

  it("tenant B's lists and filters never show tenant A's data", async () => {
    const lists = [
      "/orders",
      `/orders?customerId=${ids.customer}`,
      "/shipments",
      `/shipments?orderId=${ids.order}`,
      "/products",
      "/inventory",
      `/inventory?productId=${ids.product}`,
      "/customers",
      "/hooks",
      "/tokens",
      "/users",
    ];
    for (const path of lists) {
      const answer = await b(path);
      expect(answer.status, path).toBe(200);
      const text = JSON.stringify(answer.body);
      for (const id of Object.values(ids)) expect(text, `${path} leaks ${id}`).not.toContain(id);
    }
    // Tenant A does see its own, so the lists above are not trivially empty for A.
    expect((await a("/orders")).body.data.map((o: { id: string }) => o.id)).toContain(ids.order);
    expect((await a("/users")).body.data.map((u: { id: string }) => u.id)).toContain(ids.user);
  });

  it("tenant B's event log never shows tenant A's events, with or without ?kind=", async () => {
    // Events reach the log asynchronously: first wait until A sees its own (from orders and
    // inventory alike), or B's empty answer would prove nothing.
    const expectedKinds = ["customer.created", "product.created", "inventory.adjusted", "order.created", "inventory.reserved", "shipment.created"];
    const eventsOfA = await eventually(async () => {
      const data: { id: string; kind: string }[] = (await a("/events?limit=100")).body.data;
      return expectedKinds.every((kind) => data.some((e) => e.kind === kind)) ? data : undefined;
    }, 15_000);
    const idsOfA = new Set(eventsOfA.map((e) => e.id));
    const kinds = [...new Set(eventsOfA.map((e) => e.kind))];
    for (const path of ["/events?limit=100", ...kinds.map((kind) => `/events?limit=100&kind=${kind}`)]) {
      const answer = await b(path);
      expect(answer.status, path).toBe(200);
      expect(
        answer.body.data.filter((e: { id: string }) => idsOfA.has(e.id)),
        path,
      ).toEqual([]);
      const text = JSON.stringify(answer.body);
      for (const id of Object.values(ids)) expect(text, `${path} leaks ${id}`).not.toContain(id);
    }
    // The same filters do find A's events for A.
    expect((await a("/events?limit=100&kind=order.created")).body.data.some((e: { orderId: string }) => e.orderId === ids.order)).toBe(true);
  });

  it("B's own hook cannot reach A's execution: retry and listing answer nothing of A's", async () => {
    const hookB = await b("/hooks", { json: { name: "B's mixed hook", url: `${receiverUrl}/b-mixed`, on: "customer.created" } });
    expect(hookB.status).toBe(201);
    const retry = await b(`/hooks/${hookB.body.id}/executions/${ids.execution}/retry`, { method: "POST" });
    expect(retry.status, JSON.stringify(retry.body)).toBe(404);
    // Nor can A reach its execution through B's hook.
    expect((await a(`/hooks/${hookB.body.id}/executions/${ids.execution}/retry`, { method: "POST" })).status).toBe(404);
    const executions = await b(`/hooks/${hookB.body.id}/executions`);
    expect(executions.status).toBe(200);
    expect(JSON.stringify(executions.body)).not.toContain(ids.execution);
    expect((await b(`/hooks/${hookB.body.id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("a hook of tenant B never receives tenant A's events", async () => {
    const hookB = await b("/hooks", { json: { name: "B's hook", url: `${receiverUrl}/b`, on: "order.created" } });
    expect(hookB.status).toBe(201);
    const order = await createOrder(a, ids.customer, [{ productId: ids.product, quantity: 1 }]);
    await eventually(async () => (received.some((r) => r.path === "/a" && r.body.orderId === order.id) ? true : undefined), 15_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => r.path.startsWith("/b"))).toEqual([]);
  });
});
